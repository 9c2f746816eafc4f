package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// A follow-up in the TUI: after an answer the input is in follow-up mode
// (said above it); the follow-up is rewritten visibly, the loop runs on the
// rewritten question (its step prompt, and the reflection's search of the
// web), the answer cites the first turn's document under its number, and
// the stepper and the Markdown export show both turns.
func TestTUIFollowUpInTmux(t *testing.T) {
	cs := caseStudyScript()
	script := &queue{}
	script.add(cs.Steps, cs.Judges)
	w := newWorld(t, script, fakellm.ChunkDelay(5*time.Millisecond))
	work := t.TempDir()
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL()}
	s := startTmux(t, w, work, args...)
	s.waitFor("start", 15*time.Second, "Ask a question", "pref wiki")

	s.text(caseQuestion)
	s.keys("Enter")
	s.waitFor("answer", 20*time.Second, "Final answer", "1974")
	s.waitFor("follow-up mode", 10*time.Second, "follow-up · turn 2", "ctrl+n new thread")

	// The number the first turn gave the corpus's Sørensen passage.
	out, _, code := w.run("sessions", "list", "--json")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("sessions: %q", out)
	}
	id := strings.SplitN(strings.SplitN(out, `"id":"`, 2)[1], `"`, 2)[0]
	shown, _, _ := w.run("sessions", "show", id, "--json")
	evs := parseEvents(t, shown)
	final1 := payloadsOf[engine.Final](evs)[0]
	num := 0
	for i, d := range final1.Sources {
		if strings.Contains(d.Text, "concept of pH") && strings.HasPrefix(d.Source, "local:") {
			num = final1.SourceNums[i]
		}
	}
	if num == 0 {
		t.Fatalf("the first turn did not observe the Sørensen passage: %+v", final1.Sources)
	}
	cite := "[" + itoa(num) + "]"
	script.add(followUpSteps(cite), nil)
	webBefore := len(w.search.Queries())

	s.text(followUp)
	s.keys("Enter")
	scr := s.waitFor("follow-up answer", 20*time.Second, "Final answer · turn 2", "assisting Sørensen "+cite)
	if !strings.Contains(scr, "follow-up · turn 3") {
		t.Errorf("after the follow-up the input does not offer turn 3:\n%s", scr)
	}
	// The rewrite is its own block, after the first turn's answer: scroll
	// the trajectory from the top to it (the run may be over before a
	// screenshot catches it going by).
	// Tab and g's top is waited for first: paging tells f's effect by the
	// screen changing.
	s.keys("Tab", "g")
	s.waitFor("top", keyWait, "next doc", "Question     In what year")
	pageUntil(t, s, "f", 40, "Turn 2 · follow-up")
	s.waitFor("rewrite", 5*time.Second, "Turn 2 · follow-up", "Follow-up    "+followUp, "Rewritten    "+rewritten)
	// What the follow-up carried of its thread (issue 21).
	pageUntil(t, s, "f", 20, "Context      carried")
	s.waitFor("thread context", 5*time.Second, "Context      carried ", "earlier document")
	if q := w.search.Queries()[webBefore:]; len(q) != 1 || q[0] != rewritten {
		t.Errorf("the web engine received %q, want the rewritten question", q)
	}
	stepPrompt := ""
	for _, g := range w.llm.Generations() {
		if g.Schema == nil && strings.Contains(g.Prompt, "Question: "+rewritten) {
			stepPrompt = g.Prompt
			break
		}
	}
	if stepPrompt == "" || !strings.Contains(stepPrompt, cite+" title: ") {
		t.Errorf("no step prompt asks the rewritten question with the first turn's %s in context", cite)
	}
	// Still one session: the thread.
	if out, _, _ := w.run("sessions", "list", "--json"); strings.Count(out, "\n") != 1 || !strings.Contains(out, `"turns":2`) {
		t.Errorf("sessions after the follow-up: %s", out)
	}

	// The stepper walks both turns.
	pressed(t, s, "2", "Sessions (1)")
	pressed(t, s, "Enter", "turn 1/2 · step 1")
	pressed(t, s, "End", "turn 2/2 · final answer")
	stepUntil(t, s, "Left", 30, "turn 2/2 · rewritten question")
	s.waitFor("turn boundary", 5*time.Second, "turn 2/2 · rewritten question", "Final answer · turn 1", "Rewritten    "+rewritten)

	// Export from the stepper: both turns in the Markdown.
	pressed(t, s, "x", "format", "path")
	exported := exportWritten(t, s, filepath.Join(w.home, "data", "exports"), work)
	md, _ := os.ReadFile(exported)
	for _, want := range []string{"## Turn 1: ", "## Turn 2: " + followUp, "*Rewritten as:* " + rewritten, "- " + cite + " **"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("export lacks %q:\n%s", want, md)
		}
	}

	// ctrl+n leaves follow-up mode: the next question is a new session.
	pressedAway(t, s, "Escape", "Written to")
	pressed(t, s, "1", "follow-up · turn 3")
	s.keys("Tab")
	s.keys("C-n")
	s.waitFor("new thread", 5*time.Second, "New thread")
	if strings.Contains(s.screen(), "follow-up · turn") {
		t.Errorf("ctrl+n left the follow-up indicator:\n%s", s.screen())
	}
}
