package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/ui/trajectory"
)

func TestStatusLineKeepsWebPolicyWhenNarrow(t *testing.T) {
	for _, width := range []int{120, 80, 60, 40, 24} {
		m := New(context.Background(), Deps{}, Options{Settings: scripted.Settings(), NoColor: true, Now: newClock().Now})
		m.resize(width, 24)
		m.ask.traj = trajectory.FromEvents(scripted.Stored(testStart))
		m.ask.running = true
		m.ask.started = testStart.Add(-75 * time.Second)
		s := ansi.Strip(m.statusView())
		if ansi.StringWidth(s) > width {
			t.Errorf("width %d: status is %d wide: %q", width, ansi.StringWidth(s), s)
		}
		if !strings.Contains(s, "web auto") {
			t.Errorf("width %d: web policy dropped: %q", width, s)
		}
		if width >= 80 && !strings.Contains(s, "step 3/3") {
			t.Errorf("width %d: step dropped: %q", width, s)
		}
		if width >= 120 && !strings.Contains(s, "1:15") {
			t.Errorf("width %d: elapsed time dropped: %q", width, s)
		}
	}
}

func TestIndexETA(t *testing.T) {
	tests := []struct {
		p       IndexProgress
		elapsed time.Duration
		want    time.Duration
		ok      bool
	}{
		{IndexProgress{FilesDone: 5, FilesTotal: 15}, 10 * time.Second, 20 * time.Second, true},
		{IndexProgress{FilesDone: 0, FilesTotal: 15}, 10 * time.Second, 0, false},
		{IndexProgress{FilesDone: 15, FilesTotal: 15}, 10 * time.Second, 0, false},
		{IndexProgress{FilesDone: 3, FilesTotal: 0}, 10 * time.Second, 0, false},
	}
	for _, tt := range tests {
		got, ok := indexETA(tt.p, tt.elapsed)
		if got != tt.want || ok != tt.ok {
			t.Errorf("indexETA(%+v, %s) = %s %v, want %s %v", tt.p, tt.elapsed, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWithExt(t *testing.T) {
	formats := newFakeSessions().Formats()
	tests := []struct{ in, ext, want string }{
		{"/x/a.md", ".json", "/x/a.json"},
		{"/x/a.jsonl", ".md", "/x/a.md"},
		{"/x/a.json", ".jsonl", "/x/a.jsonl"},
		{"/x/a.pairs.jsonl", ".html", "/x/a.html"},
		{"/x/a.jsonl", ".pairs.jsonl", "/x/a.pairs.jsonl"},
		{"/x/report.txt", ".md", "/x/report.txt"},
	}
	for _, tt := range tests {
		if got := withExt(tt.in, formats, tt.ext); got != tt.want {
			t.Errorf("withExt(%q, %q) = %q, want %q", tt.in, tt.ext, got, tt.want)
		}
	}
}

func TestLLMAdvice(t *testing.T) {
	s := engine.RunConfig{Settings: engine.Settings{Model: "m:7b"}, Wiring: engine.Wiring{LLM: "ollama"}}
	tests := []struct {
		err  error
		llm  string
		want string
	}{
		{&llm.UnreachableError{Backend: "ollama", Addr: "x"}, "ollama", "ollama pull m:7b"},
		{&llm.UnreachableError{Backend: "llamacpp", Addr: "x"}, "llamacpp", "llama-server"},
		{&llm.ModelNotFoundError{Backend: "ollama", Model: "m:7b"}, "ollama", "ollama pull m:7b"},
		{errors.New("other"), "ollama", ""},
	}
	for _, tt := range tests {
		s.LLM = tt.llm
		got := llmAdvice(tt.err, s)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("llmAdvice(%v) = %q, want it to contain %q", tt.err, got, tt.want)
		}
	}
}

// TestConsentFollowsPolicyChange: a run started under "ask" stops asking
// once the user switches the policy; the dialog only appears under "ask".
func TestConsentFollowsPolicyChange(t *testing.T) {
	tests := []struct {
		policy string
		want   engine.Consent
		asks   bool
	}{
		{engine.WebAuto, engine.ConsentSession, false},
		{engine.WebNever, engine.ConsentDeny, false},
		{engine.WebAsk, engine.ConsentOnce, true},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			quit := make(chan struct{})
			defer close(quit)
			s := newStream(1, quit)
			got := make(chan engine.Consent, 1)
			r := runnerFunc(func(ctx context.Context, q string, set engine.RunConfig, consent engine.ConsentFunc, emit func(engine.Event)) error {
				c, err := consent(ctx, engine.ConsentRequest{Query: "q"})
				got <- c
				return err
			})
			startRun(context.Background(), r, s, "q", engine.RunConfig{}, func() string { return tt.policy })
			if tt.asks {
				b := s.next()().(batchMsg)
				cm, ok := b.msgs[0].(consentMsg)
				if !ok {
					t.Fatalf("first message %T, want a consent request", b.msgs[0])
				}
				cm.reply <- engine.ConsentOnce
			}
			if c := <-got; c != tt.want {
				t.Fatalf("consent = %v, want %v", c, tt.want)
			}
		})
	}
}

type runnerFunc func(ctx context.Context, q string, s engine.RunConfig, consent engine.ConsentFunc, emit func(engine.Event)) error

func (f runnerFunc) Run(ctx context.Context, q string, s engine.RunConfig, consent engine.ConsentFunc, emit func(engine.Event)) error {
	return f(ctx, q, s, consent, emit)
}

// TestStreamBatchesTokens: a burst of events arrives as one batch.
func TestStreamBatchesTokens(t *testing.T) {
	quit := make(chan struct{})
	defer close(quit)
	s := newStream(7, quit)
	for i := 0; i < 300; i++ {
		s.send(runEventMsg{ev: engine.Event{Payload: engine.Token{Text: "x"}}})
	}
	s.close()
	b := s.next()().(batchMsg)
	// One batch, its deltas merged into one.
	if len(b.msgs) != 1 || !b.done || b.stream != 7 || b.msgs[0].(runEventMsg).ev.Payload.(engine.Token).Text != strings.Repeat("x", 300) {
		t.Fatalf("batch of %d (done %v, stream %d), want all 300 deltas merged into one, done, stream 7", len(b.msgs), b.done, b.stream)
	}
}

// TestQuitUnblocksSenders: after quit, a worker's send returns instead of
// blocking on a full queue.
func TestQuitUnblocksSenders(t *testing.T) {
	quit := make(chan struct{})
	s := newStream(1, quit)
	done := make(chan bool)
	go func() {
		ok := true
		for i := 0; i < 5000 && ok; i++ {
			ok = s.send(runEventMsg{})
		}
		done <- ok
	}()
	time.Sleep(20 * time.Millisecond)
	close(quit)
	select {
	case ok := <-done:
		if ok {
			t.Fatal("send reported success after quit with a full queue")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("send stayed blocked after quit")
	}
}

// TestThrottledRefresh: tokens alone do not re-render at once; the refresh
// tick does, and structural events do immediately.
func TestThrottledRefresh(t *testing.T) {
	m := New(context.Background(), Deps{}, Options{Settings: scripted.Settings(), NoColor: true, Now: newClock().Now})
	a := m.ask
	a.run = newStream(3, make(chan struct{}))
	a.running = true
	a.traj = trajectory.New()
	a.tv.set(a.traj, true)
	before := len(a.tv.out.Lines)
	cmd, _ := a.handleRun(batchMsg{stream: 3, msgs: []tea.Msg{runEventMsg{ev: engine.Event{Step: 1, Payload: engine.Token{Text: "Thought: hello"}}}}})
	if cmd == nil || !a.tickPending || !a.dirty {
		t.Fatal("a token batch must schedule a refresh tick")
	}
	if len(a.tv.out.Lines) != before {
		t.Fatal("a token batch re-rendered at once")
	}
	a.update(refreshMsg{stream: 3})
	if a.dirty || !strings.Contains(ansi.Strip(strings.Join(a.tv.out.Lines, "\n")), "Thought: hello") {
		t.Fatal("the refresh tick did not render the streamed text")
	}
	a.handleRun(batchMsg{stream: 3, msgs: []tea.Msg{runEventMsg{ev: engine.Event{Step: 1, Payload: engine.Thought{Text: "hello"}}}}})
	if a.dirty || !strings.Contains(ansi.Strip(strings.Join(a.tv.out.Lines, "\n")), "Thought      hello") {
		t.Fatal("a structural event must render at once")
	}
}

// TestShutdownWaitsForTheRun: quitting cancels a run and waits until the
// runner has returned (it records the cancelled final event on the way).
func TestShutdownWaitsForTheRun(t *testing.T) {
	returned := make(chan struct{})
	r := runnerFunc(func(ctx context.Context, q string, s engine.RunConfig, consent engine.ConsentFunc, emit func(engine.Event)) error {
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // writing the final event
		close(returned)
		return ctx.Err()
	})
	m := New(context.Background(), Deps{Runner: r}, Options{Settings: scripted.Settings(), NoColor: true})
	// Run the start command as Bubble Tea would (the clock tick is left
	// out); it starts the run and waits for its first messages.
	batch := m.ask.start("q")().(tea.BatchMsg)
	go batch[0]()
	waitUntil(t, func() bool { return m.ask.run.started.Load() })
	m.shutdown()
	select {
	case <-returned:
	default:
		t.Fatal("shutdown returned before the runner did")
	}
}
