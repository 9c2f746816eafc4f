package fold

import (
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// Gate, rewrite and refinement events fold into note blocks of their own;
// the events of a step after them still fold into the step's block.
func TestFoldNotes(t *testing.T) {
	h := func(seq, step int, p engine.Payload) engine.Event {
		return engine.Event{Session: "s", Seq: seq, Step: step, Payload: p}
	}
	tr := FromEvents([]engine.Event{
		h(1, 0, engine.SessionStart{Question: "q"}),
		h(2, 0, engine.Rewrite{Original: "and?", Rewritten: "q"}),
		h(3, 0, engine.Gate{Retrieve: true, Queries: []string{"q"}}),
		h(4, 1, engine.Thought{Text: "t"}),
		h(5, 1, engine.Refinement{BeforeChars: 10, AfterChars: 5}),
		h(6, 1, engine.Action{Tool: "Search", Query: "q"}),
		h(7, 1, engine.Retrieval{Source: "local:wiki", Query: "q"}),
		h(8, 1, engine.Selection{Analysis: "a"}),
		h(9, 1, engine.Observation{Source: "local:wiki"}),
		h(10, 1, engine.Notice{Message: "m"}),
	})
	kinds := []Kind{KindNote, KindNote, KindStep, KindNote}
	if len(tr.Blocks) != len(kinds) {
		t.Fatalf("%d blocks, want %d", len(tr.Blocks), len(kinds))
	}
	for i, k := range kinds {
		if tr.Blocks[i].Kind != k {
			t.Errorf("block %d is kind %d, want %d", i, tr.Blocks[i].Kind, k)
		}
	}
	if n := tr.Blocks[0].Note; n == nil || n.Type() != engine.EventRewrite {
		t.Errorf("block 0 note = %v, want the rewrite", n)
	}
	step := tr.Blocks[2]
	if step.Thought != "t" || !step.HasAction || len(step.Retrievals) != 1 || len(step.Selections) != 1 || step.Observation == nil || len(step.Errors) != 1 {
		t.Errorf("the step's events did not all fold into its block: %+v", step)
	}
	if tr.Last() != step {
		t.Errorf("Last is not the step block")
	}
}
