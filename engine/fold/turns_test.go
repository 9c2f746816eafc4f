package fold

import (
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// threadEvents is a session of two turns; the second starts with its
// rewrite event and numbers its steps from 1 again.
func threadEvents() []engine.Event {
	tr := true
	d1 := sources.Document{ID: "d1", Title: "Sørensen", Source: "local:wiki"}
	d5 := sources.Document{ID: "d5", Title: "Olsen's studies", Source: "local:wiki"}
	evs := []engine.Event{
		engine.Event{Payload: engine.SessionStart{Question: "Who introduced pH?"}},
		engine.Event{Step: 1, Payload: engine.Thought{Text: "search"}},
		engine.Event{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "pH"}},
		engine.Event{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "pH", Docs: []sources.Document{d1}}},
		engine.Event{Step: 1, Payload: engine.Selection{Status: &tr}},
		engine.Event{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{"d1"}, DocNums: []int{1}}},
		engine.Event{Step: 2, Payload: engine.Answer{Text: "Sørensen [1]", Label: "CORRECT"}},
		engine.Event{Step: 2, Payload: engine.Token{Text: "Final Answer: Sørensen"}},
		engine.Event{Payload: engine.Final{Answer: "Sørensen [1]", Label: "CORRECT", Counts: &engine.Counts{LocalRetrievals: 1}}},
		engine.Event{Turn: 2, Payload: engine.Rewrite{Original: "where did he study?", Rewritten: "Where did Sørensen study?"}},
		engine.Event{Turn: 2, Payload: engine.Notice{Message: "a notice before the first step"}},
		engine.Event{Turn: 2, Step: 1, Payload: engine.Thought{Text: "search again"}},
		engine.Event{Turn: 2, Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "Sørensen studies"}},
		engine.Event{Turn: 2, Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "Sørensen studies", Docs: []sources.Document{d5}}},
		engine.Event{Turn: 2, Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{"d5"}, DocNums: []int{2}}},
	}
	for i := range evs {
		evs[i].Session, evs[i].Seq, evs[i].Time = "s", i+1, time.Unix(int64(i), 0)
	}
	return evs
}

func TestFoldTurns(t *testing.T) {
	evs := threadEvents()
	tr := FromEvents(evs)
	if tr.CurrentTurn() != 2 || len(tr.Turns) != 2 {
		t.Fatalf("turns %d / %d, want 2", tr.CurrentTurn(), len(tr.Turns))
	}
	if tr.Final != nil {
		t.Fatal("the running second turn shows the first turn's final")
	}
	if f := tr.Turns[0].Final; f == nil || f.Answer != "Sørensen [1]" {
		t.Fatalf("first turn's final %+v", f)
	}
	if tu := tr.Turns[1]; tu.Question != "where did he study?" || tu.Rewritten != "Where did Sørensen study?" || tr.QuestionOf(2) != "Where did Sørensen study?" || tr.QuestionOf(1) != "Who introduced pH?" {
		t.Fatalf("second turn %+v", tu)
	}
	b1, b2 := tr.TurnBlocks(1), tr.TurnBlocks(2)
	if len(b1) != 2 || len(b2) != 2 || b2[0].Kind != KindNote || b2[1].Step != 1 || b2[1].Observation == nil || b2[1].Thought != "search again" {
		t.Fatalf("blocks of turn 1: %d, turn 2: %d %+v", len(b1), len(b2), b2)
	}
	if tr.Turns[1].First != 2 {
		t.Fatalf("turn 2 starts at block %d, want 2", tr.Turns[1].First)
	}
	if tr.CurrentStep() != 1 {
		t.Fatalf("current step %d, want 1 (steps are numbered per turn)", tr.CurrentStep())
	}
	if local, _, used := tr.RetrievalCounts(); local != 1 || used != 1 {
		t.Fatalf("counts of the current turn: local %d used %d", local, used)
	}
	// The context of the follow-up's step holds the first turn's document.
	ctx := tr.ContextBefore(len(tr.Blocks) - 1)
	if len(ctx) != 1 || ctx[0].Num != 1 || ctx[0].Doc.ID != "d1" {
		t.Fatalf("context before the follow-up's step: %+v", ctx)
	}
	if len(tr.Errors) != 1 {
		t.Fatalf("errors %v", tr.Errors)
	}
	// A single-question session is one turn.
	one := FromEvents(evs[:9])
	if len(one.Turns) != 1 || one.Final == nil || one.Turns[0].Final != one.Final || one.Turns[0].Question != "Who introduced pH?" {
		t.Fatalf("one turn: %+v", one.Turns)
	}
}
