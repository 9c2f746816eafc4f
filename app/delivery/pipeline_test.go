package delivery

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// run is a scripted stream of events as the engine emits them: stored
// events numbered 1, 2, …, token deltas carrying the current seq.
type run struct {
	evs []engine.Event
	seq int
}

func (r *run) add(typ string, step int, role, text string) {
	if typ != engine.EventToken {
		r.seq++
	}
	r.evs = append(r.evs, engine.Event{Session: "s", Seq: r.seq, Step: step, Payload: payloadOf(typ, role, text)})
}

// payloadOf is a payload of type typ carrying role and text where it has
// them.
func payloadOf(typ, role, text string) engine.Payload {
	switch typ {
	case engine.EventToken:
		return engine.Token{Role: role, Text: text}
	case engine.EventThought:
		return engine.Thought{Role: role, Text: text}
	case engine.EventAnswer:
		return engine.Answer{Role: role, Text: text}
	case engine.EventError:
		return engine.Notice{Message: text, Fatal: true}
	case engine.EventSession:
		return engine.SessionStart{}
	case engine.EventAction:
		return engine.Action{}
	case engine.EventRetrieval:
		return engine.Retrieval{}
	case engine.EventObservation:
		return engine.Observation{}
	case engine.EventFinal:
		return engine.Final{}
	}
	return engine.Unknown{Type: typ}
}

// tokens adds n deltas of one step and role, and returns their text.
func (r *run) tokens(step int, role string, n int) string {
	var all strings.Builder
	for i := range n {
		d := fmt.Sprintf("w%d.%d ", step, i)
		all.WriteString(d)
		r.add(engine.EventToken, step, role, d)
	}
	return all.String()
}

// recorder is a consumer that can be held up, and a store that records
// what it committed.
type recorder struct {
	mu        sync.Mutex
	committed map[int]bool
	batches   [][]engine.Event
	got       []engine.Event
	early     []int // stored events delivered before their commit
	gate      chan struct{}
	first     chan struct{} // closed when the first event reaches deliver
	once      sync.Once
}

func newRecorder(held bool) *recorder {
	r := &recorder{committed: map[int]bool{}, first: make(chan struct{})}
	if held {
		r.gate = make(chan struct{})
	}
	return r
}

func (r *recorder) persist(evs []engine.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range evs {
		if ev.Type() == engine.EventToken {
			panic("a token event reached persist")
		}
		r.committed[ev.Seq] = true
	}
	r.batches = append(r.batches, append([]engine.Event(nil), evs...))
	return nil
}

func (r *recorder) deliver(ev engine.Event) {
	r.once.Do(func() { close(r.first) })
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if ev.Type() != engine.EventToken && !r.committed[ev.Seq] {
		r.early = append(r.early, ev.Seq)
	}
	r.got = append(r.got, ev)
}

// emitAll emits evs on a goroutine of its own (the engine's) and reports
// when it returned.
func emitAll(p *Pipeline, evs []engine.Event) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, ev := range evs {
			p.Emit(ev)
		}
	}()
	return done
}

// checkDelivered checks what a consumer got against what was emitted:
// every stored event once, in seq order, and between two stored events
// token deltas whose concatenated text is exactly what was streamed there.
func checkDelivered(t *testing.T, emitted, got []engine.Event) {
	t.Helper()
	type key struct {
		seq, step int
		role      string
	}
	streamed := func(evs []engine.Event) (stored []int, text map[key]string, order []key) {
		text = map[key]string{}
		for _, ev := range evs {
			tok, ok := ev.Payload.(engine.Token)
			if !ok {
				stored = append(stored, ev.Seq)
				continue
			}
			k := key{ev.Seq, ev.Step, tok.Role}
			if _, ok := text[k]; !ok {
				order = append(order, k)
			}
			text[k] += tok.Text
		}
		return stored, text, order
	}
	wantStored, wantText, wantOrder := streamed(emitted)
	gotStored, gotText, gotOrder := streamed(got)
	if fmt.Sprint(gotStored) != fmt.Sprint(wantStored) {
		t.Fatalf("stored events delivered in seq order %v, want %v", gotStored, wantStored)
	}
	if fmt.Sprint(gotOrder) != fmt.Sprint(wantOrder) {
		t.Fatalf("token runs delivered in order %v, want %v", gotOrder, wantOrder)
	}
	for k, want := range wantText {
		if gotText[k] != want {
			t.Errorf("streamed text of %+v: got %d bytes, want %d (%.40q…)", k, len(gotText[k]), len(want), want)
		}
	}
	// Deltas sit where they were emitted: after the stored event of their
	// seq, before the next.
	last := 0
	for _, ev := range got {
		if ev.Type() != engine.EventToken {
			last = ev.Seq
		} else if ev.Seq != last {
			t.Fatalf("a delta of seq %d delivered after stored event %d", ev.Seq, last)
		}
	}
}

func TestSlowConsumerDoesNotBlockTheEngine(t *testing.T) {
	var r run
	r.add(engine.EventSession, 0, "", "")
	r.tokens(1, "step", 5000)
	r.add(engine.EventThought, 1, "step", "thought one")
	r.add(engine.EventAction, 1, "", "")
	r.tokens(2, "step", 5000)
	r.tokens(2, "forced", 3000)
	r.add(engine.EventAnswer, 2, "forced", "answer")
	r.add(engine.EventFinal, 0, "", "")

	rec := newRecorder(true)
	p := New(rec.persist, rec.deliver, 0)
	t0 := time.Now()
	done := emitAll(p, r.evs)
	// The consumer is stuck on the first event: the engine still finishes.
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the engine was blocked by a consumer that does not read")
	}
	t.Logf("%d events emitted in %v while the consumer was blocked", len(r.evs), time.Since(t0))
	<-rec.first
	// Commits do not wait for the consumer either: the final event gets
	// stored while the consumer is still stuck.
	deadline := time.Now().Add(20 * time.Second)
	for {
		rec.mu.Lock()
		stored := rec.committed[r.seq]
		rec.mu.Unlock()
		if stored {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the final event was not committed while the consumer was blocked")
		}
		time.Sleep(time.Millisecond)
	}
	close(rec.gate)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	checkDelivered(t, r.evs, rec.got)
	st := p.stats()
	if st.Merged == 0 || len(rec.got) >= len(r.evs) {
		t.Errorf("nothing merged: %d delivered of %d emitted, stats %+v", len(rec.got), len(r.evs), st)
	}
	if st.Delivered != uint64(len(r.evs)) || st.Emitted != uint64(len(r.evs)) {
		t.Errorf("stats %+v, want %d emitted and delivered", st, len(r.evs))
	}
	if len(rec.early) > 0 {
		t.Errorf("events %v delivered before they were committed", rec.early)
	}
	t.Logf("%d events emitted, %d delivered, %d commits", len(r.evs), len(rec.got), st.Commits)
}

func TestDeliveryOrderAndMerging(t *testing.T) {
	type step struct {
		typ, role string
		step, n   int
	}
	cases := []struct {
		name  string
		steps []step
		max   int
	}{
		{"deltas between stored events", []step{{engine.EventSession, "", 0, 1}, {engine.EventToken, "step", 1, 50}, {engine.EventThought, "step", 1, 1}, {engine.EventToken, "step", 2, 50}, {engine.EventFinal, "", 0, 1}}, 0},
		{"roles kept apart", []step{{engine.EventSession, "", 0, 1}, {engine.EventToken, "step", 1, 20}, {engine.EventToken, "forced", 1, 20}, {engine.EventToken, "step", 1, 20}, {engine.EventFinal, "", 0, 1}}, 0},
		{"steps kept apart", []step{{engine.EventSession, "", 0, 1}, {engine.EventToken, "step", 1, 20}, {engine.EventToken, "step", 2, 20}, {engine.EventFinal, "", 0, 1}}, 0},
		{"tiny queue: the engine waits, nothing is lost", []step{{engine.EventSession, "", 0, 1}, {engine.EventRetrieval, "", 1, 40}, {engine.EventToken, "step", 2, 200}, {engine.EventObservation, "", 2, 40}, {engine.EventError, "", 0, 1}}, 1},
		{"only deltas before the end", []step{{engine.EventToken, "step", 1, 100}, {engine.EventFinal, "", 0, 1}}, 2},
	}
	for _, tc := range cases {
		for _, held := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/held=%v", tc.name, held), func(t *testing.T) {
				var r run
				for _, s := range tc.steps {
					if s.typ == engine.EventToken {
						r.tokens(s.step, s.role, s.n)
						continue
					}
					for range s.n {
						r.add(s.typ, s.step, s.role, s.typ)
					}
				}
				rec := newRecorder(held)
				p := New(rec.persist, rec.deliver, tc.max)
				done := emitAll(p, r.evs)
				if held {
					<-rec.first
					close(rec.gate)
				}
				<-done
				if err := p.Close(); err != nil {
					t.Fatal(err)
				}
				checkDelivered(t, r.evs, rec.got)
				if len(rec.early) > 0 {
					t.Errorf("events %v delivered before they were committed", rec.early)
				}
				// Every stored event committed exactly once, in seq order.
				var seqs []int
				for _, b := range rec.batches {
					if tc.max > 0 && len(b) > tc.max {
						t.Errorf("a batch of %d events with at most %d pending", len(b), tc.max)
					}
					for _, ev := range b {
						seqs = append(seqs, ev.Seq)
					}
				}
				for i, s := range seqs {
					if s != i+1 {
						t.Fatalf("committed seqs %v, want 1…%d", seqs, r.seq)
					}
				}
				if len(seqs) != r.seq {
					t.Fatalf("committed %d events, want %d", len(seqs), r.seq)
				}
			})
		}
	}
}

// A failing store does not stop the run being shown: every event is still
// delivered, the store is not tried again, and Close reports the error.
func TestPersistErrorStillDelivers(t *testing.T) {
	var r run
	r.add(engine.EventSession, 0, "", "")
	r.add(engine.EventThought, 1, "step", "t")
	r.add(engine.EventFinal, 0, "", "")
	boom := errors.New("disk full")
	calls := 0
	var got []engine.Event
	p := New(func([]engine.Event) error { calls++; return boom }, func(ev engine.Event) { got = append(got, ev) }, 0)
	for _, ev := range r.evs {
		p.Emit(ev)
		p.Flush() // one batch each
	}
	if err := p.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close: %v, want %v", err, boom)
	}
	if calls != 1 {
		t.Errorf("persist called %d times after failing, want once", calls)
	}
	checkDelivered(t, r.evs, got)
}

// Flush returns only once everything emitted before it is delivered; Emit
// after Close is ignored.
func TestFlushAndClose(t *testing.T) {
	var mu sync.Mutex
	var got []engine.Event
	p := New(nil, func(ev engine.Event) {
		time.Sleep(time.Millisecond)
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	}, 0)
	for i := 1; i <= 20; i++ {
		p.Emit(engine.Event{Session: "s", Seq: i, Payload: engine.Thought{}})
	}
	p.Flush()
	mu.Lock()
	n := len(got)
	mu.Unlock()
	if n != 20 {
		t.Fatalf("Flush returned with %d of 20 events delivered", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p.Emit(engine.Event{Session: "s", Seq: 21, Payload: engine.Thought{}})
	p.Flush()
	if len(got) != 20 {
		t.Errorf("%d events delivered, an event emitted after Close included", len(got))
	}
}
