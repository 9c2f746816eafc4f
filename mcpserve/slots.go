package mcpserve

import (
	"context"
	"sync"
)

// askQueue lets at most n asks run at once; the others wait in arrival
// order. One run uses two of the LLM server's slots in turn (the reasoning
// steps on one, the judge on another: llama.cpp id_slot 0 and 1, or
// Ollama's OLLAMA_NUM_PARALLEL=2), so with n = 1 two agents' questions
// never fight over a slot, evict each other's prompt cache or run into
// the server's own queue limits: the second runs when the first is done.
// search, fetch and sessions never wait here.
type askQueue struct {
	mu      sync.Mutex
	free    int
	waiting []chan struct{}
}

func newAskQueue(n int) *askQueue { return &askQueue{free: n} }

// acquire waits for a turn; ahead is called once, before waiting, with the
// number of asks running or waiting ahead of this one (it is not called
// when the turn is free at once). It fails only when ctx ends first.
func (q *askQueue) acquire(ctx context.Context, ahead func(n int)) error {
	q.mu.Lock()
	if q.free > 0 && len(q.waiting) == 0 {
		q.free--
		q.mu.Unlock()
		return nil
	}
	turn := make(chan struct{})
	q.waiting = append(q.waiting, turn)
	n := len(q.waiting)
	q.mu.Unlock()
	if ahead != nil {
		ahead(n)
	}
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		defer q.mu.Unlock()
		for i, w := range q.waiting {
			if w == turn {
				q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
				return ctx.Err()
			}
		}
		// The turn was handed over just as ctx ended: pass it on.
		q.releaseLocked()
		return ctx.Err()
	}
}

// release ends a turn, handing it to the longest waiting ask.
func (q *askQueue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.releaseLocked()
}

func (q *askQueue) releaseLocked() {
	if len(q.waiting) > 0 {
		next := q.waiting[0]
		q.waiting = q.waiting[1:]
		close(next)
		return
	}
	q.free++
}
