// Package delivery carries a run's events from the engine to where they are
// kept and shown: engine → persist (batched commits) → deliver, on a
// goroutine of its own, so the engine never waits for a commit or for a
// slow consumer of token deltas.
//
// Guarantees:
//   - Order: events are delivered in the order they were emitted (seq
//     order), token deltas in place between them.
//   - Stored before shown: an event is delivered only after the commit that
//     stored it (token events are never stored).
//   - Nothing is dropped: stored events (the final event, fatal errors, every
//     contract event) always reach the consumer. Token deltas may be merged:
//     while the consumer is behind, consecutive deltas of the same step and
//     role (and seq) become one delta carrying their concatenated text.
//   - Bounded: the engine blocks only when maxPending stored events wait to
//     be committed (a run emits far fewer); token deltas never block it.
//     Commits do not wait for the consumer unless maxPending committed
//     events wait to be delivered.
package delivery

import (
	"strings"
	"sync"

	"github.com/prefrag/prefrag/engine"
)

// DefaultMaxPending bounds the stored events waiting to be committed and
// delivered before Emit blocks.
const DefaultMaxPending = 256

// Pipeline is one run's event pipeline: two stages, each with a bounded
// queue of its own, so a slow consumer holds up neither the engine nor the
// commits. Emit may be called from one goroutine at a time (the engine's);
// Close ends it.
type Pipeline struct {
	persist    func([]engine.Event) error
	deliver    func(engine.Event)
	maxPending int

	mu   sync.Mutex
	cond *sync.Cond
	in   queue // emitted, not yet stored
	out  queue // stored, not yet delivered
	// closed: no more Emit; persisted: the persist stage has ended;
	// exited: the deliver stage has ended.
	closed, persisted, exited bool
	err                       error

	emitted, delivered uint64 // Emit calls so far, and how many are delivered
	// merged (token deltas merged into an earlier one) and commits are
	// counted for the tests (stats_test.go).
	merged, commits int

	done chan struct{}
}

// queue is a FIFO of pending events; stored counts its non-token events.
type queue struct {
	items  []pending
	stored int
}

// pending is a queued event; text collects merged token deltas.
type pending struct {
	ev   engine.Event
	text *strings.Builder
	n    uint64 // Emit calls it stands for
}

func (it *pending) materialize() {
	if it.text != nil {
		if tok, ok := it.ev.Payload.(engine.Token); ok {
			tok.Text = it.text.String()
			it.ev.Payload = tok
		}
		it.text = nil
	}
}

// New starts a pipeline. persist stores a batch of events (never token
// events) in one commit; after its first error it is no longer called and
// the events are still delivered (Close returns that error). deliver
// receives every event, in order, on the pipeline's own goroutine.
// maxPending ≤ 0 means DefaultMaxPending.
func New(persist func([]engine.Event) error, deliver func(engine.Event), maxPending int) *Pipeline {
	if maxPending <= 0 {
		maxPending = DefaultMaxPending
	}
	p := &Pipeline{persist: persist, deliver: deliver, maxPending: maxPending, done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	go p.persistLoop()
	go p.deliverLoop()
	return p
}

// Emit queues ev. A token delta never blocks: it is merged into the last
// queued event when that is a delta of the same step, role and seq. Any
// other event blocks only while maxPending stored events wait to be
// committed. Events emitted after Close are ignored.
func (p *Pipeline) Emit(ev engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.emitted++
	p.push(&p.in, pending{ev: ev, n: 1}, func() bool { return p.persisted })
}

// push appends it to q, or merges it (a token delta) into q's last event.
// A stored event waits while q holds maxPending of them, unless gone()
// says the stage that empties q has ended. p.mu is held.
func (p *Pipeline) push(q *queue, it pending, gone func() bool) {
	tok, token := it.ev.Payload.(engine.Token)
	if token && len(q.items) > 0 {
		if last := &q.items[len(q.items)-1]; engine.MergeableTokens(last.ev, it.ev) {
			if last.text == nil {
				last.text = &strings.Builder{}
				last.text.WriteString(last.ev.Payload.(engine.Token).Text)
			}
			if it.text != nil {
				last.text.WriteString(it.text.String())
			} else {
				last.text.WriteString(tok.Text)
			}
			last.n += it.n
			p.merged++
			return
		}
	}
	for !token && q.stored >= p.maxPending && !gone() {
		p.cond.Wait()
	}
	q.items = append(q.items, it)
	if !token {
		q.stored++
	}
	p.cond.Broadcast()
}

// take removes and returns everything q holds. p.mu is held.
func (p *Pipeline) take(q *queue) []pending {
	items := q.items
	q.items, q.stored = nil, 0
	p.cond.Broadcast()
	return items
}

// Flush waits until every event emitted so far has been delivered (e.g.
// before asking the user something, so what led to the question is shown).
func (p *Pipeline) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	target := p.emitted
	for p.delivered < target && !p.exited {
		p.cond.Wait()
	}
}

// Close stores and delivers everything queued, stops the pipeline and
// returns the first persist error.
func (p *Pipeline) Close() error {
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// persistLoop commits what was emitted, a batch per commit, and passes it
// on to the deliver stage.
func (p *Pipeline) persistLoop() {
	var evs []engine.Event
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for len(p.in.items) == 0 && !p.closed {
			p.cond.Wait()
		}
		if len(p.in.items) == 0 {
			break
		}
		batch := p.take(&p.in)
		failed := p.err != nil || p.persist == nil
		p.mu.Unlock()

		evs = evs[:0]
		for i := range batch {
			batch[i].materialize()
			if _, token := batch[i].ev.Payload.(engine.Token); !token {
				evs = append(evs, batch[i].ev)
			}
		}
		var err error
		if len(evs) > 0 && !failed {
			err = p.persist(evs)
		}

		p.mu.Lock()
		if len(evs) > 0 && !failed {
			p.commits++
		}
		if err != nil && p.err == nil {
			p.err = err
		}
		for _, it := range batch {
			p.push(&p.out, it, func() bool { return p.exited })
		}
	}
	p.persisted = true
	p.cond.Broadcast()
}

// deliverLoop hands stored events (and token deltas) to the consumer.
func (p *Pipeline) deliverLoop() {
	defer close(p.done)
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for len(p.out.items) == 0 && !p.persisted {
			p.cond.Wait()
		}
		if len(p.out.items) == 0 {
			break
		}
		batch := p.take(&p.out)
		p.mu.Unlock()
		var n uint64
		for i := range batch {
			batch[i].materialize()
			if p.deliver != nil {
				p.deliver(batch[i].ev)
			}
			n += batch[i].n
		}
		p.mu.Lock()
		p.delivered += n
		p.cond.Broadcast()
	}
	p.exited = true
	p.cond.Broadcast()
}
