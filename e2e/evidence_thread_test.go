package e2e

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// A thread whose answers both have evidence: turn 1 is evidenceScript's
// answer (three claims), turn 2 a follow-up answered from turn 1's passage
// [1] with a claim it supports (the passage's third sentence) and one that
// cites nothing.
const (
	evidenceFollowUp  = "and its building?"
	evidenceRewritten = "When was the building of the Velloran Institute renovated?"
	quoteRenovated    = "The building was renovated in 1962 after a fire."
)

func evidenceThreadScript() *queue {
	s := evidenceScript()
	q := &queue{}
	q.add(s.Steps, s.Judges)
	q.add([]string{
		"Standalone question: " + evidenceRewritten,
		"Thought: The passage I have says it.\nFinal Answer: The building was renovated in 1962 after a fire [1]. It is open to visitors on Sundays.\n" +
			"Self-Evaluation: CORRECT\nExplanation: stated in [1].",
	}, nil)
	return q
}

// TestEvidenceThreadSessionsShow: `sessions show` of a stored thread shows
// each turn's evidence under that turn's sources: turn 1's two quotes and
// its unsupported claim, turn 2's quote and its claim that cites nothing.
func TestEvidenceThreadSessionsShow(t *testing.T) {
	w := newWorld(t, evidenceThreadScript())
	w.write("velloran.md", velloran)
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	js, errOut, code := w.run(w.askArgs("--json", "-k", "1", "When was the Velloran Institute founded?")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := parseEvents(t, js)[0].Session
	js2, errOut, code := w.run(w.askArgs("--json", "-k", "1", "--continue", "last", evidenceFollowUp)...)
	if code != 0 {
		t.Fatalf("follow-up: exit %d: %s", code, errOut)
	}
	ev2 := payloadsOf[engine.Evidence](parseEvents(t, js2))
	if len(ev2) != 1 || len(ev2[0].Claims) != 2 || ev2[0].Claims[0].Verdict != "supported" || ev2[0].Claims[1].Verdict != "uncited" {
		t.Fatalf("turn 2 evidence %+v", ev2)
	}
	shown, errOut, code := w.run("sessions", "show", id)
	if code != 0 {
		t.Fatalf("sessions show: %d %s", code, errOut)
	}
	turn2 := strings.Index(shown, evidenceFollowUp)
	if turn2 < 0 {
		t.Fatalf("sessions show lacks the follow-up:\n%s", shown)
	}
	one, two := shown[:turn2], shown[turn2:]
	for _, q := range []string{quoteFounded, quoteLibrary} {
		if !strings.Contains(one[strings.LastIndex(one, "Sources"):], "“"+q+"”") {
			t.Errorf("turn 1 does not quote %q under its sources:\n%s", q, shown)
		}
	}
	if !strings.Contains(one, "no support found in [2]") {
		t.Errorf("turn 1 does not mark its unsupported claim:\n%s", shown)
	}
	if i := strings.LastIndex(two, "Sources"); i < 0 || !strings.Contains(two[i:], "“"+quoteRenovated+"”") {
		t.Errorf("turn 2 does not quote %q under its sources:\n%s", quoteRenovated, shown)
	}
	if strings.Contains(one, quoteRenovated) {
		t.Errorf("turn 2's quote shows under turn 1:\n%s", shown)
	}
	if !strings.Contains(two, "It is open to visitors on Sundays") || !strings.Contains(two, "no source") {
		t.Errorf("turn 2 does not mark its claim that cites nothing:\n%s", two)
	}
}
