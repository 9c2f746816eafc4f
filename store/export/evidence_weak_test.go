package export

import (
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// TestMarkdownMarksWeakSupport: in the Markdown export a quote that
// supports a claim only weakly is marked under it, naming the claim; the
// quote of a supported claim is not.
func TestMarkdownMarksWeakSupport(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	docs := []sources.Document{{ID: "a", Title: "Velloran", Source: "local:kb"}, {ID: "b", Title: "Harbour", Source: "local:kb"}}
	evs := []engine.Event{
		{Seq: 1, Time: at, Payload: engine.SessionStart{Question: "Q?"}},
		{Seq: 2, Time: at, Payload: engine.Evidence{Claims: []evidence.Result{
			{Text: "Founded in 1887.", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: "It was founded in 1887.", Start: 0, End: 23, Score: 0.8}},
				Cited:   []evidence.Citation{{N: 1, Verdict: evidence.Supported, Score: 0.8}}},
			{Text: "Its director won a Nobel prize in 1921.", Citations: []int{2}, Verdict: evidence.Weak,
				Support: []evidence.Quote{{N: 2, Quote: "The director travelled widely.", Start: 0, End: 30, Score: 0.15}},
				Cited:   []evidence.Citation{{N: 2, Verdict: evidence.Weak, Score: 0.15}}},
		}}},
		{Seq: 3, Time: at, Payload: engine.Final{Answer: "Founded in 1887 [1]. Its director won a Nobel prize in 1921 [2].",
			Citations: []int{1, 2}, Sources: docs, SourceNums: []int{1, 2}}},
	}
	rec := &store.Record{Session: store.Session{ID: "s", Question: "Q?", Started: at}, Events: evs}
	var b strings.Builder
	if err := Markdown(&b, rec); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	q := strings.Index(md, "> “The director travelled widely.”")
	mark := strings.Index(md, "weak support for:* Its director won a Nobel prize in 1921.")
	if q < 0 || mark < q || mark > q+200 {
		t.Errorf("the weak quote is not marked under it with its claim:\n%s", md)
	}
	if strings.Count(md, "weak support for") != 1 {
		t.Errorf("want one weak mark (the supported quote unmarked):\n%s", md)
	}
}
