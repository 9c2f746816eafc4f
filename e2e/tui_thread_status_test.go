package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
)

// Each view of a thread says whose figures it shows: in the stepper, the
// status line on a turn-1 stop shows turn 1 (labelled "turn 1/2") and on
// the final answer turn 2 ("turn 2/2"), each with its own step count.
func TestTUIThreadStatusNamesTheTurnInTmux(t *testing.T) {
	w, script, out := caseStudyTurn1(t)
	id := parseEvents(t, out)[0].Session
	script.add(followUpSteps("[1]"), nil)
	if _, errOut, code := w.run(w.askArgs("--continue", id, followUp)...); code != 0 {
		t.Fatalf("follow-up: exit %d\n%s", code, errOut)
	}
	s := startTmux(t, w, t.TempDir(), "--llm-url", w.llm.URL(), "--model", "fake-model")
	s.waitFor("start", 15*time.Second, "Ask a question")
	s.keys("Tab")
	s.keys("2")
	s.waitFor("sessions", 10*time.Second, "Sessions (1)")
	s.keys("Enter")
	stepperOpened(t, s)
	first := pressed(t, s, "Home", "turn 1/2 · step 1", "turn 1/2 │ steps 3/3")
	last := pressed(t, s, "End", "final answer", "turn 2/2 │ steps 1/3")
	for _, scr := range []string{first, last} {
		if strings.Contains(scr, "│ steps") && !strings.Contains(scr, "turn ") {
			t.Errorf("the status line does not say whose counts it shows:\n%s", scr)
		}
	}
}

// The workspace marks a cached empty web answer as cached: a session whose
// web search the cache answered with nothing, opened in the stepper.
func TestTUICachedEmptySearchInTmux(t *testing.T) {
	w := newWorld(t, twice(caseStudyScript()))
	w.search.SetMode(fakesearch.ModeEmpty)
	for i := 0; i < 2; i++ {
		if _, errOut, code := w.run(w.askArgs(caseQuestion)...); code != 0 {
			t.Fatalf("ask %d: exit %d: %s", i+1, code, errOut)
		}
	}
	if n := w.search.Requests(); n != 1 {
		t.Fatalf("%d web requests, want 1 (the second run answered by the cache)", n)
	}
	s := startTmux(t, w, t.TempDir(), "--llm-url", w.llm.URL(), "--model", "fake-model")
	s.waitFor("start", 15*time.Second, "Ask a question")
	s.keys("Tab")
	s.keys("2")
	s.waitFor("sessions", 10*time.Second, "Sessions (2)")
	s.keys("Enter") // the newest: the cache answered its web search
	stepperOpened(t, s)
	stepUntil(t, s, "Right", 8, "WEB searxng")
	s.waitFor("cached empty search", 5*time.Second, "0 documents · cached, no request sent")
}
