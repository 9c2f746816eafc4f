package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
)

// TestStepAnswerRendersMarkdown: the Answer of a step (the stepper's
// Answer stop, and the live trajectory) shows the answer's Markdown
// rendered, as the final answer does: no raw "**bold**", "*italics*" or
// "## " markers, the text and citations kept, no line past the width.
func TestStepAnswerRendersMarkdown(t *testing.T) {
	answer := "## Result\n\nThe **Vltava** (German: *Moldau*) flows through Prague [1].\n\n- first point\n- second `point`"
	for _, w := range []int{40, 100} {
		tr := New()
		for _, ev := range []engine.Event{
			{Payload: engine.SessionStart{Question: "Q?"}},
			{Step: 1, Payload: engine.Thought{Text: "I know it."}},
			{Step: 1, Payload: engine.Answer{Text: answer, Label: "CORRECT"}},
		} {
			tr.Apply(ev)
		}
		screen := ansi.Strip(plainRenderer().Render(tr, View{Width: w, Upto: -1}).Content())
		at := strings.Index(screen, "Answer")
		if at < 0 {
			t.Fatalf("no Answer block:\n%s", screen)
		}
		block := screen[at:]
		for _, raw := range []string{"**", "*Moldau*", "`point`"} {
			if strings.Contains(block, raw) {
				t.Errorf("width %d: the answer shows raw Markdown %q:\n%s", w, raw, block)
			}
		}
		flat := strings.Join(strings.Fields(block), " ")
		for _, want := range []string{"Vltava (German: Moldau) flows", "[1]", "first point"} {
			if !strings.Contains(flat, want) {
				t.Errorf("width %d: the answer lacks %q:\n%s", w, want, block)
			}
		}
		for _, l := range strings.Split(screen, "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: line of %d columns: %q", w, ansi.StringWidth(l), l)
			}
		}
	}
}
