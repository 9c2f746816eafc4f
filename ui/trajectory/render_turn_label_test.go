package trajectory

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
)

// TestCancelledFollowUpHasNoEarlierLabel: a follow-up cancelled before it
// answered shows no self-evaluation label; turn 1's CORRECT stays with
// turn 1's answer.
func TestCancelledFollowUpHasNoEarlierLabel(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	tr := FromEvents([]engine.Event{
		{Session: "s", Seq: 1, Time: at, Payload: engine.SessionStart{Question: "Q?"}},
		{Session: "s", Seq: 2, Time: at, Step: 1, Payload: engine.Answer{Text: "Prague.", Label: "CORRECT"}},
		{Session: "s", Seq: 3, Time: at, Payload: engine.Final{Answer: "Prague.", Counts: &engine.Counts{}}},
		{Session: "s", Seq: 4, Time: at, Turn: 2, Payload: engine.Rewrite{Original: "and then?", Rewritten: "What then?"}},
		{Session: "s", Seq: 5, Time: at, Turn: 2, Step: 1, Payload: engine.Thought{Text: "I need to search."}},
		{Session: "s", Seq: 6, Time: at, Turn: 2, Payload: engine.Final{Cancelled: true, Counts: &engine.Counts{}}},
	})
	if got := tr.Label(); got != "" {
		t.Errorf("Label() = %q for a cancelled follow-up, want none", got)
	}
	out := ansi.Strip(plainRenderer().Render(tr, View{Width: 100, Upto: -1, ShowFinal: true}).Content())
	i := strings.Index(out, "Final answer · turn 2")
	if i < 0 {
		t.Fatalf("no final of turn 2:\n%s", out)
	}
	if strings.Contains(out[i:], "CORRECT") {
		t.Errorf("the cancelled follow-up shows turn 1's label:\n%s", out[i:])
	}
	if j := strings.Index(out, "Final answer · turn 1"); j < 0 || !strings.Contains(out[j:i], "CORRECT") {
		t.Errorf("turn 1's answer lost its label:\n%s", out)
	}
}
