package delivery

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/prefrag/prefrag/engine"
)

// TestDesignEventsStoredBeforeDelivered holds the store's commit and
// checks that nothing reaches the consumer meanwhile, then releases it and
// checks that everything does. It runs in a synctest bubble: synctest.Wait
// returns only when every goroutine of the pipeline is blocked, so an
// event delivered early is seen on every run, not on the unlucky ones.
func TestDesignEventsStoredBeforeDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu        sync.Mutex
			hold      = make(chan struct{})
			stored    = map[int]bool{}
			delivered []engine.Event
			early     []int
		)
		persist := func(evs []engine.Event) error {
			mu.Lock()
			gate := hold
			mu.Unlock()
			<-gate
			mu.Lock()
			defer mu.Unlock()
			for _, ev := range evs {
				stored[ev.Seq] = true
			}
			return nil
		}
		deliver := func(ev engine.Event) {
			mu.Lock()
			defer mu.Unlock()
			if ev.Type() != engine.EventToken && !stored[ev.Seq] {
				early = append(early, ev.Seq)
			}
			delivered = append(delivered, ev)
		}
		seen := func() []int {
			mu.Lock()
			defer mu.Unlock()
			var seqs []int
			for _, ev := range delivered {
				if ev.Type() != engine.EventToken {
					seqs = append(seqs, ev.Seq)
				}
			}
			return seqs
		}
		release := func() {
			mu.Lock()
			defer mu.Unlock()
			select {
			case <-hold:
			default:
				close(hold)
			}
		}
		p := New(persist, deliver, 0)
		// A failed check must not leave the pipeline blocked in the bubble.
		defer func() { release(); p.Close() }()

		// Round 1: the session event, a token delta and a thought.
		p.Emit(engine.Event{Session: "s", Seq: 1, Payload: engine.SessionStart{}})
		p.Emit(engine.Event{Session: "s", Seq: 1, Payload: engine.Token{}})
		p.Emit(engine.Event{Session: "s", Seq: 2, Payload: engine.Thought{}})
		synctest.Wait()
		if got := seen(); len(got) > 0 {
			t.Fatalf("events %v delivered while the store held their commit", got)
		}
		release()
		synctest.Wait()
		if got := seen(); !slices.Equal(got, []int{1, 2}) {
			t.Fatalf("after the commit: delivered %v, want [1 2]", got)
		}

		// Round 2: hold the next commit again.
		mu.Lock()
		hold = make(chan struct{})
		mu.Unlock()
		p.Emit(engine.Event{Session: "s", Seq: 3, Payload: engine.Action{}})
		p.Emit(engine.Event{Session: "s", Seq: 4, Payload: engine.Final{}})
		synctest.Wait()
		if got := seen(); !slices.Equal(got, []int{1, 2}) {
			t.Fatalf("events %v delivered while the store held the commit of 3 and 4", got)
		}
		release()
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if got := seen(); !slices.Equal(got, []int{1, 2, 3, 4}) {
			t.Fatalf("after Close: delivered %v, want [1 2 3 4]", got)
		}
		if len(early) > 0 {
			t.Errorf("events %v delivered before they were stored", early)
		}
	})
}
