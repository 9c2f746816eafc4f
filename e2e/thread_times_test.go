package e2e

import (
	"fmt"
	"github.com/prefrag/prefrag/engine"
	"strings"
	"testing"
	"time"
)

// Each view of a thread says whose counts and times it shows: a turn's
// counts line names its turn, and `sessions show` gives each turn's
// answering time, their sum, and the wall-clock time from the first
// question to the last answer, each labelled, instead of one "took" that
// mixes them.
func TestThreadTimesAreLabelled(t *testing.T) {
	w, script, out := caseStudyTurn1(t)
	id := parseEvents(t, out)[0].Session
	script.add(followUpSteps("[1]"), nil)
	text, errOut, code := w.run(w.askArgs("--continue", id, followUp)...)
	if code != 0 {
		t.Fatalf("follow-up: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(text, "\nTurn 2: LLM calls ") {
		t.Errorf("the follow-up's counts do not name their turn:\n%s", text)
	}
	js, _, _ := w.run("sessions", "show", id, "--json")
	var per []string
	var total time.Duration
	for _, f := range ofType(parseEvents(t, js), "final") {
		d := time.Duration(f.Payload.(engine.Final).Counts.TotalMillis) * time.Millisecond
		total += d
		turn := max(f.Turn, 1)
		per = append(per, fmt.Sprintf("turn %d %s", turn, d.Round(100*time.Millisecond)))
	}
	if len(per) != 2 {
		t.Fatalf("%d final events, want 2", len(per))
	}
	shown, errOut, code := w.run("sessions", "show", id)
	if code != 0 {
		t.Fatalf("sessions show: %s", errOut)
	}
	head := strings.SplitN(shown, "\n", 2)[0]
	want := fmt.Sprintf(" · 2 turns · answering took %s in all (%s) · ", total.Round(100*time.Millisecond), strings.Join(per, ", "))
	if !strings.Contains(head, want) || !strings.HasSuffix(head, " from the first question to the last answer") {
		t.Errorf("sessions show's header does not label the thread's times:\n%s\nwant it to contain %q", head, want)
	}
	if strings.Contains(head, " took ") && !strings.Contains(head, "answering took") {
		t.Errorf("an unlabelled time in the header: %s", head)
	}
	for _, want := range []string{"\nTurn 1: LLM calls ", "\nTurn 2: LLM calls "} {
		if !strings.Contains(shown, want) {
			t.Errorf("sessions show lacks %q:\n%s", strings.TrimSpace(want), shown)
		}
	}
}
