package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// TestNothingNewIsNoJudge: a search that brought only documents seen
// before shows as "Nothing new", not as a judge's decision, and its
// documents as seen before; a judge told of documents that came back
// shows them as such, not among the new ones.
func TestNothingNewIsNoJudge(t *testing.T) {
	a := sources.Document{ID: "a1", Title: "Alpha", Text: "Alpha was founded in 1887.", Source: "local:wiki"}
	no, web := false, "web:duckduckgo"
	tr := New()
	for _, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "Q?"}},
		{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "alpha"}},
		{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "alpha", Docs: []sources.Document{a}}},
		{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{"a1"}, DocNums: []int{1}}},
		{Step: 2, Payload: engine.Action{Tool: "Search_Engine", Query: "alpha again"}},
		{Step: 2, Payload: engine.Retrieval{Source: "local:wiki", Query: "alpha again", Docs: []sources.Document{a}}},
		{Step: 2, Payload: engine.Selection{Status: &no, NextSource: &web, Source: "local:wiki", NothingNew: true,
			Analysis: "nothing new: 1 document retrieved was obtained before ([1]), so the judge was not asked"}},
		{Step: 2, Payload: engine.Retrieval{Source: web, Query: "alpha again"}},
		{Step: 2, Payload: engine.Observation{Source: web, Discarded: []string{"a1"}}},
	} {
		tr.Apply(ev)
	}
	out := ansi.Strip(plainRenderer().Render(tr, View{Width: 110, Upto: -1, Detail: true}).Content())
	_, step2, _ := strings.Cut(out, "Step 2")
	for _, want := range []string{"Nothing new  ⇄ switching to web (duckduckgo)", "1 document retrieved was obtained before ([1]), so the judge was not asked", "(seen before)"} {
		if !strings.Contains(step2, want) {
			t.Errorf("step 2 lacks %q:\n%s", want, step2)
		}
	}
	if strings.Contains(step2, "Judge ") || strings.Contains(step2, "nothing new: ") {
		t.Errorf("step 2 shows a judge decision:\n%s", step2)
	}
}
