package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// After opening a stored session (2, Enter) and going back (1), typing goes
// to the question box, whole; ctrl+n leaves the old thread; the question
// then starts a new session instead of a follow-up. Typed with the
// trajectory focused, a letter no key takes starts the question too.
func TestTUITypingAfterStepperGoesToTheQuestion(t *testing.T) {
	cs := caseStudyScript()
	script := &fakellm.Script{Steps: append(append([]string{}, cs.Steps...), cs.Steps...), Judges: append(append([]string{}, cs.Judges...), cs.Judges...)}
	w := newWorld(t, script, fakellm.ChunkDelay(2*time.Millisecond))
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL()}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("start", 15*time.Second, "Ask a question", "pref wiki")
	s.text(caseQuestion)
	s.keys("Enter")
	s.waitFor("answer", 20*time.Second, "Final answer", "1974")
	s.waitFor("follow-up mode", 10*time.Second, "follow-up · turn 2")

	s.keys("Tab")
	s.keys("2")
	s.waitFor("sessions", 10*time.Second, "Sessions (1)")
	s.keys("Enter")
	stepperOpened(t, s)
	s.keys("1")
	const q = "summarize the paper quickly"
	s.text(q)
	s.waitFor("the whole question in the box", 5*time.Second, "│"+q)

	s.keys("C-n")
	s.waitFor("new thread", 5*time.Second, "New thread")
	if strings.Contains(s.screen(), "follow-up · turn 2") {
		t.Errorf("ctrl+n on the Ask screen left the follow-up mode on:\n%s", s.screen())
	}
	s.keys("Enter")
	s.waitFor("second answer", 20*time.Second, "in the thread of “"+q+"”", "Final answer")

	out, _, code := w.run("sessions", "list", "--json")
	if code != 0 {
		t.Fatal(out)
	}
	var questions []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			Question string `json:"question"`
		}
		json.Unmarshal([]byte(l), &row)
		questions = append(questions, row.Question)
	}
	if len(questions) != 2 || questions[0] != q {
		t.Errorf("sessions = %q, want the new question whole, as a new session", questions)
	}

	// With the trajectory focused, a letter no key takes begins a question.
	s.keys("Tab")
	s.waitFor("trajectory focused", 5*time.Second, "to question input")
	s.text("summarize")
	s.waitFor("typed into the box", 5*time.Second, "│summarize")
}

// A question asked with no reachable LLM server says why in the
// trajectory and in the status line, not just `steps 0/3 · 0:00`.
func TestTUIUnreachableServerSaysWhy(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	dead := w.llm.URL()
	w.llm.Close()
	s := startTmux(t, w, t.TempDir(), "--llm-url", dead, "--model", "fake-model", "--web", "never")
	s.waitFor("start", 15*time.Second, "Ask a question")
	s.text("what is the Carlsberg Laboratory?")
	s.keys("Enter")
	scr := s.waitFor("why, in the trajectory and the status line", 15*time.Second,
		"Failed", "The question was not run: cannot reach", "✗ not run: cannot reach")
	if strings.Contains(scr, "steps 0/3") {
		t.Errorf("the status line still shows the counts of a run that never started:\n%s", scr)
	}
}
