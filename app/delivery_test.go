package app

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/store"
)

// consumer records what Ask delivers; it can be held on the first event.
type consumer struct {
	mu      sync.Mutex
	evs     []engine.Event
	gate    chan struct{}
	first   chan struct{}
	once    sync.Once
	onToken func()
}

func newConsumer(held bool) *consumer {
	c := &consumer{first: make(chan struct{})}
	if held {
		c.gate = make(chan struct{})
	}
	return c
}

func (c *consumer) emit(ev engine.Event) {
	c.once.Do(func() { close(c.first) })
	if c.gate != nil {
		<-c.gate
	}
	c.mu.Lock()
	c.evs = append(c.evs, ev)
	f := c.onToken
	c.mu.Unlock()
	if ev.Type() == engine.EventToken && f != nil {
		f()
	}
}

// stored returns the session's stored event lines.
func storedLines(t *testing.T, a *App, id string) []json.RawMessage {
	t.Helper()
	rec, err := a.Store.GetSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Lines
}

// checkShownIsStored checks that every event delivered (tokens aside) is
// stored, byte for byte, in the same order, and nothing else is.
func checkShownIsStored(t *testing.T, a *App, id string, shown []engine.Event) {
	t.Helper()
	lines := storedLines(t, a, id)
	var n int
	for _, ev := range shown {
		if ev.Type() == engine.EventToken {
			continue
		}
		b, _ := json.Marshal(ev)
		if n >= len(lines) || string(lines[n]) != string(b) {
			t.Fatalf("shown event %d (seq %d, %s) is not stored as shown", n, ev.Seq, ev.Type())
		}
		n++
	}
	if n != len(lines) {
		t.Fatalf("%d events shown, %d stored", n, len(lines))
	}
}

// A consumer that does not read does not hold the run up: the engine
// answers and every event is committed while the consumer is stuck on the
// first one; it then gets everything in order, the streamed text whole.
func TestAskSlowConsumerDoesNotBlockTheRun(t *testing.T) {
	a, _, _ := openTestApp(t)
	indexCorpus(t, a, "notes")
	answer := strings.TrimSpace(strings.Repeat("The merger plan stays confidential. ", 150))
	reply := "Thought: I know this already.\nFinal Answer: " + answer + "\nSelf-Evaluation: CORRECT\nExplanation: known."
	llm := fakellm.New(t, fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply { return fakellm.Reply{Text: reply} }))
	s := a.Cfg.Settings
	s.LLMURL, s.Web, s.Strategy = llm.URL(), engine.WebNever, engine.StrategyPrefRAG
	c := newConsumer(true)
	id := NewSessionID()
	done := make(chan error, 1)
	go func() {
		_, err := a.Ask(context.Background(), AskRequest{Question: "What is the merger plan?", Settings: s, Emit: c.emit, SessionID: id, SkipCheck: true})
		done <- err
	}()
	<-c.first
	t0 := time.Now()
	for {
		lines := storedLines(t, a, id)
		if len(lines) > 0 && strings.Contains(string(lines[len(lines)-1]), `"type":"final"`) {
			break
		}
		if time.Since(t0) > 20*time.Second {
			close(c.gate)
			t.Fatalf("the final event was not stored while the consumer was stuck (%d events stored)", len(lines))
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("run answered and stored in %v while the consumer was stuck", time.Since(t0).Round(time.Millisecond))
	close(c.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	tokens := 0
	for _, ev := range c.evs {
		if tk, ok := ev.Payload.(engine.Token); ok && ev.Step == 1 {
			streamed.WriteString(tk.Text)
			tokens++
		}
	}
	if streamed.String() != reply {
		t.Errorf("streamed text of step 1 (%d deltas): %d bytes, want the reply's %d", tokens, streamed.Len(), len(reply))
	}
	if last, ok := c.evs[len(c.evs)-1].Payload.(engine.Final); !ok || last.Answer != answer {
		t.Errorf("last event delivered %+v, want the final answer", c.evs[len(c.evs)-1])
	}
	t.Logf("%d events delivered, %d of them step-1 deltas", len(c.evs), tokens)
	checkShownIsStored(t, a, id, c.evs)
}

// A run stopped mid-stream (Ctrl+C, --run-timeout) still stores and
// delivers everything it emitted, its cancelled final event last.
func TestAskCancelledRunStoresAndShowsFinal(t *testing.T) {
	for _, how := range []string{"cancel", "run timeout"} {
		t.Run(how, func(t *testing.T) {
			a, _, _ := openTestApp(t)
			indexCorpus(t, a, "notes")
			llm := fakellm.New(t, fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
				return fakellm.Reply{Text: strings.Repeat("still thinking ", 400), ChunkDelay: 5 * time.Millisecond}
			}))
			s := a.Cfg.Settings
			s.LLMURL, s.Web = llm.URL(), engine.WebNever
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := newConsumer(false)
			var once sync.Once
			if how == "cancel" {
				c.onToken = func() { once.Do(cancel) }
			} else {
				a.Cfg.RunTimeout = 300 * time.Millisecond
			}
			id := NewSessionID()
			_, err := a.Ask(ctx, AskRequest{Question: "What is the merger plan?", Settings: s, Emit: c.emit, SessionID: id, SkipCheck: true})
			if err == nil {
				t.Fatal("a stopped run returned no error")
			}
			var last engine.Event
			for _, ev := range c.evs {
				if ev.Type() != engine.EventToken {
					last = ev
				}
			}
			if f, ok := last.Payload.(engine.Final); !ok || !f.Cancelled {
				t.Fatalf("last event delivered: %+v, want a cancelled final", last)
			}
			checkShownIsStored(t, a, id, c.evs)
			rec, _ := a.Store.GetSession(context.Background(), id)
			if rec.Session.Status != store.StatusCancelled {
				t.Errorf("status %s", rec.Session.Status)
			}
		})
	}
}

// The user is asked for consent only once what led to the question (the
// judge's selection event, the reflection's local retrieval) is shown.
func TestAskConsentComesAfterWhatLedToIt(t *testing.T) {
	for i := range 5 {
		a, _, _ := openTestApp(t)
		indexCorpus(t, a, "notes")
		s := a.Cfg.Settings
		s.Web = engine.WebAsk
		c := newConsumer(false)
		asked := 0
		consent := func(ctx context.Context, req engine.ConsentRequest) (engine.Consent, error) {
			asked++
			c.mu.Lock()
			defer c.mu.Unlock()
			var last engine.Event
			for _, ev := range c.evs {
				if ev.Type() != engine.EventToken {
					last = ev
				}
			}
			// What the engine emitted right before asking: the judge's
			// selection, or the reflection's local retrieval.
			want := engine.EventSelection
			if req.Reflection {
				want = engine.EventRetrieval
			}
			if last.Type() != want {
				t.Errorf("run %d: consent (reflection %v) asked with %s as the last event shown, want %s", i, req.Reflection, last.Type(), want)
			}
			return engine.ConsentDeny, nil
		}
		if _, err := a.Ask(context.Background(), AskRequest{Question: "What is our secret merger plan?", Settings: s, Emit: c.emit, Consent: consent, SkipCheck: true}); err != nil {
			t.Fatal(err)
		}
		if asked == 0 {
			t.Fatal("consent was never asked")
		}
	}
}
