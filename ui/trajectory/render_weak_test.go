package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
)

// TestRenderMarksWeakSupport: the workspace marks, under a quote that
// supports a claim only weakly, the claim it supports weakly; the quote of
// a supported claim is not marked.
func TestRenderMarksWeakSupport(t *testing.T) {
	tr := New()
	for _, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "Q?"}},
		{Payload: engine.Evidence{Claims: []evidence.Result{
			{Text: "Founded in 1887.", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: "The institute was founded in 1887.", End: 34, Score: 0.8}},
				Cited:   []evidence.Citation{{N: 1, Verdict: evidence.Supported, Score: 0.8}}},
			{Text: "Its director won a Nobel prize in 1921.", Citations: []int{2}, Verdict: evidence.Weak,
				Support: []evidence.Quote{{N: 2, Quote: "The director travelled widely.", End: 30, Score: 0.15}},
				Cited:   []evidence.Citation{{N: 2, Verdict: evidence.Weak, Score: 0.15}}},
		}}},
		{Payload: engine.Final{Answer: "Founded in 1887 [1]. Its director won a Nobel prize in 1921 [2].", Citations: []int{1, 2},
			Sources:    []sources.Document{{ID: "a", Title: "Velloran", Source: "local:kb"}, {ID: "b", Title: "Harbour", Source: "local:kb"}},
			SourceNums: []int{1, 2}}},
	} {
		tr.Apply(ev)
	}
	screen := ansi.Strip(plainRenderer().Render(tr, View{Width: 100, Upto: -1, ShowFinal: true}).Content())
	final := screen[strings.Index(screen, "Final answer"):]
	q := strings.Index(final, "“The director travelled widely.”")
	mark := strings.Index(final, "~ weak support for: Its director won a Nobel prize in 1921.")
	if q < 0 || mark < q {
		t.Errorf("the weak quote is not marked under it with its claim:\n%s", final)
	}
	if strings.Count(final, "weak support for") != 1 {
		t.Errorf("want one weak mark (the supported quote unmarked):\n%s", final)
	}
}
