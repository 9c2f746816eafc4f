package fold

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// TestFoldKnowsNoUI: the fold is shared by the TUI and the exports; it must
// not pull in a terminal UI library.
func TestFoldKnowsNoUI(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p := strings.Trim(im.Path.Value, `"`); strings.Contains(p, "charmbracelet") || strings.Contains(p, "/ui") {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}

// TestFoldSteps: the events of a run become blocks with their parts.
func TestFoldSteps(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	yes := true
	d := engine.Document{ID: "d1", Title: "One", Source: "local:wiki"}
	evs := []engine.Event{
		{Type: engine.EventSession, Session: "s", Seq: 1, Time: at, Question: "Q?"},
		{Type: engine.EventThought, Seq: 2, Step: 1, Text: "look"},
		{Type: engine.EventAction, Seq: 3, Step: 1, Tool: "Search_Engine", Query: "q"},
		{Type: engine.EventRetrieval, Seq: 4, Step: 1, Source: "local:wiki", Query: "q", Docs: []engine.Document{d}},
		{Type: engine.EventSelection, Seq: 5, Step: 1, Status: &yes},
		{Type: engine.EventObservation, Seq: 6, Step: 1, Source: "local:wiki", DocIDs: []string{"d1"}, DocNums: []int{1}},
		{Type: engine.EventToken, Step: 2, Text: "Thou"},
		{Type: engine.EventThought, Seq: 7, Step: 2, Text: "done"},
		{Type: engine.EventAnswer, Seq: 8, Step: 2, Text: "A", Label: engine.LabelCorrect},
		{Type: engine.EventFinal, Seq: 9, Answer: "A"},
		{Type: engine.EventError, Seq: 10, Message: "late notice"},
	}
	tr := FromEvents(evs)
	if tr.Question != "Q?" || tr.Session != "s" || !tr.Started.Equal(at) || len(tr.Blocks) != 2 || tr.Tokens != 1 || len(tr.Events) != 10 {
		t.Fatalf("trajectory = %+v", tr)
	}
	b := tr.Blocks[0]
	if b.Thought != "look" || !b.HasAction || len(b.Retrievals) != 1 || len(b.Selections) != 1 || b.Observation == nil || len(b.Trace) != 2 {
		t.Errorf("step 1 = %+v", b)
	}
	if docs := tr.ObservedDocs(b); len(docs) != 1 || docs[0].Title != "One" {
		t.Errorf("observed = %+v", docs)
	}
	if ctx := tr.ContextBefore(2); len(ctx) != 1 || ctx[0].Num != 1 {
		t.Errorf("context before step 2 = %+v", ctx)
	}
	if tr.Blocks[1].Answer == nil || tr.Label() != engine.LabelCorrect || tr.Final == nil || len(tr.Errors) != 1 {
		t.Errorf("end = %+v / %+v", tr.Blocks[1], tr.Errors)
	}
	if l, w, u := tr.RetrievalCounts(); l != 1 || w != 0 || u != 1 {
		t.Errorf("counts %d %d %d", l, w, u)
	}
}
