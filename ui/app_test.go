package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

func TestAskScreenLiveRun(t *testing.T) {
	h := newHarness(t)
	h.golden("welcome", "Ask a question below", "pref wiki")
	h.runner.pauseBefore(func(ev engine.Event) bool { return ev.Type() == engine.EventThought && ev.Step == 3 })
	h.ask(scripted.Question)
	<-h.runner.paused
	// Tokens are rendered at most every refreshEvery: wait for the last one
	// streamed before the pause ("itself."), not just for the step to show,
	// or the frame may be compared mid-stream.
	h.golden("streaming", "Thinking…", "Step 3", "Improvement Suggestions: Name the river", "itself.")
	// The clock moves before the run resumes: the run's end time is read
	// from it when the final event arrives, which may be at once.
	h.clock.Set(testStart.Add(18 * time.Second))
	close(h.runner.resume)
	h.golden("final", "Final answer", "Counts")
	q, s, _ := h.runner.last()
	if q != scripted.Question || s.Web != engine.WebAuto || s.Model != "qwen2.5:7b-instruct" {
		t.Errorf("runner got question %q, settings web=%q model=%q", q, s.Web, s.Model)
	}
}

func TestWebConsentDialog(t *testing.T) {
	h := newHarness(t, withWeb(engine.WebAsk))
	h.ask(scripted.Question)
	h.golden("dialog", "Search the web?", "river flowing through Prague")
	h.keys("a")
	h.finalSeen()
	_, s, consents := h.runner.last()
	if s.Web != engine.WebAsk || len(consents) != 1 || consents[0] != engine.ConsentOnce {
		t.Fatalf("web policy %q, consents %v; want ask and one ConsentOnce", s.Web, consents)
	}
}

func TestWebConsentChoices(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want engine.Consent
	}{
		{"session key", []string{"s"}, engine.ConsentSession},
		{"deny key", []string{"d"}, engine.ConsentDeny},
		{"esc denies", []string{"esc"}, engine.ConsentDeny},
		{"tab then enter", []string{"tab", "enter"}, engine.ConsentSession},
		{"left wraps to deny for the run", []string{"left", "enter"}, engine.ConsentDenyRun},
		{"deny for the run key", []string{"x"}, engine.ConsentDenyRun},
		{"deny this query by moving", []string{"tab", "tab", "enter"}, engine.ConsentDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withWeb(engine.WebAsk))
			h.ask(scripted.Question)
			h.waitFor("Search the web?")
			h.keys(tt.keys...)
			h.finalSeen()
			if _, _, c := h.runner.last(); len(c) != 1 || c[0] != tt.want {
				t.Fatalf("consents %v, want [%v]", c, tt.want)
			}
		})
	}
}

func TestPolicyChangeAnswersPendingConsent(t *testing.T) {
	h := newHarness(t, withWeb(engine.WebAsk))
	h.ask(scripted.Question)
	h.waitFor("Search the web?")
	// The dialog has the keys; deny this one, then switch the policy to
	// never for the next question: it is asked with "never".
	h.keys("d")
	h.finalSeen()
	h.keys("tab", "w") // ask → never
	h.waitFor("web never")
	h.keys("i")
	h.ask("Again?")
	waitUntil(t, func() bool { q, _, _ := h.runner.last(); return q == "Again?" })
	if _, s, _ := h.runner.last(); s.Web != engine.WebNever {
		t.Fatalf("second run web policy %q, want never", s.Web)
	}
}

func TestCancelKeepsPartialTrajectory(t *testing.T) {
	h := newHarness(t)
	h.runner.pauseBefore(func(ev engine.Event) bool { return ev.Type() == engine.EventThought && ev.Step == 2 })
	h.ask(scripted.Question)
	<-h.runner.paused
	h.waitFor("Step 2")
	h.keys("esc")
	h.golden("cancelled", "Cancelled. The partial trajectory is saved", "cancelled")
	s := h.plain()
	if !strings.Contains(s, "Kafka was born in Prague (partial answer)") {
		t.Error("the cancelled run's partial answer is not shown")
	}
}

func TestTypingKeysAreText(t *testing.T) {
	h := newHarness(t)
	h.typeText("?q1 w3")
	h.keys("shift+enter")
	h.typeText("second line")
	s := h.waitFor("?q1 w3", "second line")
	if strings.Contains(s, "Keys —") || strings.Contains(s, "Sessions (") {
		t.Fatalf("a printable key acted as a command while typing:\n%s", s)
	}
	if !strings.Contains(s, "web auto") {
		t.Fatal("w changed the web policy while typing")
	}
}
