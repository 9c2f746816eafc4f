package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
)

// TestRenderEvidenceQuotes: the workspace shows, under the final answer's
// sources, the quote of each source that supports a claim, and marks the
// claim without support; a follow-up turn's final has its own (none here).
func TestRenderEvidenceQuotes(t *testing.T) {
	a := sources.Document{ID: "a", Title: "Velloran", Source: "local:kb"}
	b := sources.Document{ID: "b", Title: "Harbour", Source: "local:kb"}
	tr := New()
	for _, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "Q?"}},
		{Payload: engine.Evidence{Claims: []evidence.Result{
			{Text: "Founded in 1887.", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: "The institute was founded in 1887.", End: 34, Score: 0.8}}},
			{Text: "Its director won a Nobel prize.", Citations: []int{2}, Verdict: evidence.Unsupported},
		}}},
		{Payload: engine.Final{Answer: "Founded in 1887 [1]. Its director won a Nobel prize [2].", Citations: []int{1, 2},
			Sources: []sources.Document{a, b}, SourceNums: []int{1, 2}}},
	} {
		tr.Apply(ev)
	}
	screen := ansi.Strip(plainRenderer().Render(tr, View{Width: 100, Upto: -1, ShowFinal: true}).Content())
	final := screen[strings.Index(screen, "Final answer"):]
	one, quote, two := strings.Index(final, "[1] Velloran"), strings.Index(final, "┃ “The institute was founded in 1887.”"), strings.Index(final, "[2] Harbour")
	if one < 0 || quote < one || two < quote {
		t.Errorf("quote not under source [1]:\n%s", final)
	}
	if !strings.Contains(final, "⚠ no support found in the cited source: Its director won a Nobel prize.") {
		t.Errorf("unsupported claim not marked:\n%s", final)
	}
}
