package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
)

// TestRenderMarksWeakSupport: a quote that supports a claim only weakly is
// marked under it in the text output, naming the claim; a quote that
// supports its claim well is not marked.
func TestRenderMarksWeakSupport(t *testing.T) {
	ev := engine.Evidence{Claims: []evidence.Result{
		{Text: "Founded in 1887.", Citations: []int{1}, Verdict: evidence.Supported,
			Support: []evidence.Quote{{N: 1, Quote: "The institute was founded in 1887.", Start: 0, End: 34, Score: 0.8}},
			Cited:   []evidence.Citation{{N: 1, Verdict: evidence.Supported, Score: 0.8}}},
		{Text: "Its director won a Nobel prize in 1921.", Citations: []int{2}, Verdict: evidence.Weak,
			Support: []evidence.Quote{{N: 2, Quote: "The director travelled widely.", Start: 0, End: 30, Score: 0.15}},
			Cited:   []evidence.Citation{{N: 2, Verdict: evidence.Weak, Score: 0.15}}},
	}}
	final := engine.Final{Answer: "Founded in 1887 [1]. Its director won a Nobel prize in 1921 [2].", Citations: []int{1, 2},
		Sources:    []sources.Document{{ID: "a", Title: "Velloran", Source: "local:kb"}, {ID: "b", Title: "Harbour", Source: "local:kb"}},
		SourceNums: []int{1, 2}}
	var b bytes.Buffer
	out := newEventWriter(&b, false, false)
	out.write(engine.Event{Payload: ev})
	out.write(engine.Event{Payload: final})
	got := b.String()
	q := strings.Index(got, "“The director travelled widely.”")
	mark := strings.Index(got, "weak support for: Its director won a Nobel prize in 1921.")
	if q < 0 || mark < q {
		t.Errorf("the weak quote is not marked under it with its claim:\n%s", got)
	}
	if strings.Count(got, "weak support") != 1 {
		t.Errorf("want one weak mark (the supported quote unmarked):\n%s", got)
	}
}
