package export

import (
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// TestExportsSayNothingNew: a search that brought only documents seen
// before is exported as "Nothing new" (no judge was asked), not as a
// judge's decision; a judge told of repeated documents says which.
func TestExportsSayNothingNew(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	a := sources.Document{ID: "a1", Title: "Alpha", Text: "Alpha was founded in 1887.", Source: "local:kb"}
	no, yes, web := false, true, "web:duckduckgo"
	evs := []engine.Event{
		{Seq: 1, Time: at, Payload: engine.SessionStart{Question: "Q?"}},
		{Seq: 2, Time: at, Step: 1, Payload: engine.Retrieval{Source: "local:kb", Query: "alpha", Docs: []sources.Document{a}}},
		{Seq: 3, Time: at, Step: 1, Payload: engine.Selection{Status: &yes, Source: "local:kb", Analysis: "names it", JudgeNew: "[1] title: Alpha", JudgeRepeated: "[7] Earlier"}},
		{Seq: 4, Time: at, Step: 1, Payload: engine.Observation{Source: "local:kb", DocIDs: []string{"a1"}, DocNums: []int{1}}},
		{Seq: 5, Time: at, Step: 2, Payload: engine.Retrieval{Source: "local:kb", Query: "alpha again", Docs: []sources.Document{a}}},
		{Seq: 6, Time: at, Step: 2, Payload: engine.Selection{Status: &no, NextSource: &web, Source: "local:kb", NothingNew: true,
			Analysis: "nothing new: 1 document retrieved was obtained before ([1]), so the judge was not asked"}},
		{Seq: 7, Time: at, Payload: engine.Final{Answer: "1887 [1].", Citations: []int{1}, Sources: []sources.Document{a}, SourceNums: []int{1}}},
	}
	rec := &store.Record{Session: store.Session{ID: "s", Question: "Q?", Started: at}, Events: evs}
	for _, f := range []string{FormatMarkdown, FormatHTML} {
		var b strings.Builder
		if err := Write(&b, f, rec); err != nil {
			t.Fatal(err)
		}
		doc := b.String()
		for _, want := range []string{"Nothing new", "1 document retrieved was obtained before ([1]), so the judge was not asked", "Retrieved again, obtained before", "Earlier"} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s lacks %q", f, want)
			}
		}
		if strings.Contains(doc, "nothing new: 1 document") {
			t.Errorf("%s shows the raw analysis as a judge's", f)
		}
	}
}
