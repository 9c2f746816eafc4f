package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

// threadRunner is the scripted engine that can also continue a thread: a
// follow-up emits a rewrite event and a final answer, as turn 2.
type threadRunner struct {
	*scriptRunner
	mu        sync.Mutex
	continued []string // "id|question"
	explicit  [][]string
}

func (r *threadRunner) Continue(ctx context.Context, id, q string, s engine.RunConfig, explicit []string, consent engine.ConsentFunc, emit func(engine.Event)) error {
	r.mu.Lock()
	r.continued = append(r.continued, id+"|"+q)
	r.explicit = append(r.explicit, explicit)
	r.mu.Unlock()
	at := testStart.Add(time.Hour)
	emit(engine.Event{Session: id, Seq: 100, Turn: 2, Time: at, Payload: engine.Rewrite{Original: q, Rewritten: "When was Franz Kafka born?"}})
	emit(engine.Event{Session: id, Seq: 101, Turn: 2, Time: at, Payload: engine.Final{Answer: "In 1883 [1].", Label: "CORRECT", Citations: []int{1}, Counts: &engine.Counts{LLMCalls: 2, RewriteCalls: 1}}})
	return nil
}

func (r *threadRunner) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.continued...)
}

func newThreadHarness(t *testing.T) (*harness, *threadRunner) {
	t.Helper()
	tr := &threadRunner{scriptRunner: newScriptRunner()}
	h := &harness{t: t, runner: tr.scriptRunner, sessions: newFakeSessions(), corpora: newFakeCorpora(false), clock: newClock(), w: 100, h: 30}
	st := scripted.Settings()
	st.Corpora = nil
	h.opts = Options{Settings: st, WorkDir: testWorkDir, NoColor: true, Now: h.clock.Now}
	deps := Deps{Health: fakeHealth{}, Runner: tr, Sessions: h.sessions, Corpora: h.corpora}
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx, deps, h.opts)
	h.tm = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(h.w, h.h),
		teatest.WithProgramOptions(tea.WithFilter(probeFilter)))
	t.Cleanup(func() {
		cancel()
		_ = h.tm.Quit()
		h.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		m.shutdown()
	})
	return h, tr
}

// After an answer the input asks a follow-up in that session's thread (the
// indicator says so); the follow-up continues the session and its rewrite
// shows as the turn's own block after the first turn's answer; ctrl+n
// starts a new thread instead.
func TestFollowUpMode(t *testing.T) {
	h, tr := newThreadHarness(t)
	if strings.Contains(h.plain(), "follow-up") {
		t.Fatal("follow-up mode before any answer")
	}
	h.ask("Where was Kafka born?")
	h.finalSeen()
	h.waitFor("↪ follow-up · turn 2", "ctrl+n new thread", "Ask a follow-up")
	h.ask("and when?")
	scr := h.waitFor("══ Turn 2 · follow-up", "Follow-up    and when?", "Rewritten    When was Franz Kafka born?", "Final answer · turn 2", "In 1883 [1].")
	if !strings.Contains(scr, "↪ follow-up · turn 3") {
		t.Errorf("after turn 2 the input does not offer turn 3:\n%s", scr)
	}
	if c := tr.calls(); len(c) != 1 || c[0] != scripted.SessionID+"|and when?" {
		t.Fatalf("continued %v", c)
	}
	if q, _, _ := tr.last(); q != "Where was Kafka born?" {
		t.Fatalf("a follow-up went to Run: %q", q)
	}
	h.tm.Send(tea.KeyPressMsg{Code: 'n', Mod: tea.ModCtrl})
	scr = h.waitFor("New thread")
	if strings.Contains(scr, "↪ follow-up") {
		t.Fatalf("ctrl+n kept follow-up mode:\n%s", scr)
	}
	h.ask("Who wrote The Trial?")
	h.finalSeen()
	if q, _, _ := tr.last(); q != "Who wrote The Trial?" || len(tr.calls()) != 1 {
		t.Fatalf("after ctrl+n the question was not a new thread: run %q, continued %v", q, tr.calls())
	}
}

// The stepper's c opens a stored session's thread in the ask screen.
func TestStepperContinuesThread(t *testing.T) {
	h, tr := newThreadHarness(t)
	h.keys("tab", "2")
	h.waitFor("Sessions (3)")
	h.keys("enter")
	h.waitFor("1/6")
	h.keys("c")
	h.waitFor("↪ follow-up · turn 2", "Ask a follow-up")
	h.ask("and when?")
	h.waitFor("Final answer · turn 2")
	if c := tr.calls(); len(c) != 1 || c[0] != scripted.SessionID+"|and when?" {
		t.Fatalf("continued %v", c)
	}
}

// A follow-up keeps its thread's privacy unless the user changed the web
// policy (w) since the thread's last turn: that change is explicit and is
// passed on as such, for that turn only.
func TestFollowUpWebChangeIsExplicit(t *testing.T) {
	h, tr := newThreadHarness(t)
	h.ask("Where was Kafka born?")
	h.finalSeen()
	h.waitFor("↪ follow-up · turn 2")
	h.ask("and when?")
	h.waitFor("Final answer · turn 2")
	h.waitFor("↪ follow-up · turn 3")
	h.keys("tab", "w") // the policy changes: the next turn's choice
	h.waitFor("web ask")
	h.keys("i")
	h.ask("and where did he die?")
	waitUntil(t, func() bool { return len(tr.calls()) == 2 })
	tr.mu.Lock()
	got := tr.explicit
	tr.mu.Unlock()
	if len(got) != 2 || len(got[0]) != 0 || len(got[1]) != 1 || got[1][0] != engine.PrivacyWeb {
		t.Fatalf("explicit privacy per follow-up %q, want none then [web]", got)
	}
}
