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
		engine.Event{Session: "s", Seq: 1, Time: at, Payload: engine.SessionStart{Question: "Q?"}},
		engine.Event{Seq: 2, Step: 1, Payload: engine.Thought{Text: "look"}},
		engine.Event{Seq: 3, Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "q"}},
		engine.Event{Seq: 4, Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "q", Docs: []engine.Document{d}}},
		engine.Event{Seq: 5, Step: 1, Payload: engine.Selection{Status: &yes}},
		engine.Event{Seq: 6, Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{"d1"}, DocNums: []int{1}}},
		engine.Event{Step: 2, Payload: engine.Token{Text: "Thou"}},
		engine.Event{Seq: 7, Step: 2, Payload: engine.Thought{Text: "done"}},
		engine.Event{Seq: 8, Step: 2, Payload: engine.Answer{Text: "A", Label: engine.LabelCorrect}},
		engine.Event{Seq: 9, Payload: engine.Final{Answer: "A"}},
		engine.Event{Seq: 10, Payload: engine.Notice{Message: "late notice"}},
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
