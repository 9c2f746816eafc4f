package trajectory

import (
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

var start = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

func TestFoldScriptedSession(t *testing.T) {
	tr := FromEvents(scripted.Events(start))
	if tr.Question != scripted.Question || tr.Session != scripted.SessionID {
		t.Fatalf("question/session not taken from the session event: %q %q", tr.Question, tr.Session)
	}
	type want struct {
		kind        Kind
		step        int
		thought     bool
		action      bool
		retrievals  int
		selections  int
		observation bool
		answer      string
		supplement  bool
	}
	wants := []want{
		{KindStep, 1, true, true, 1, 1, true, "", false},
		{KindStep, 2, true, true, 2, 1, true, "", false},
		{KindStep, 3, true, false, 0, 0, false, "INCORRECT", false},
		{KindSupplement, 3, false, false, 2, 0, false, "", true},
		{KindStep, 4, true, false, 0, 0, false, "CORRECT", false},
	}
	if len(tr.Blocks) != len(wants) {
		t.Fatalf("got %d blocks, want %d", len(tr.Blocks), len(wants))
	}
	for i, w := range wants {
		b := tr.Blocks[i]
		label := ""
		if b.Answer != nil {
			label = b.Answer.Label
		}
		got := want{b.Kind, b.Step, b.Thought != "", b.HasAction, len(b.Retrievals), len(b.Selections), b.Observation != nil, label, b.Supplement != nil}
		if got != w {
			t.Errorf("block %d = %+v, want %+v", i, got, w)
		}
	}
	if tr.Final == nil || tr.Label() != "CORRECT" {
		t.Fatalf("final missing or label %q", tr.Label())
	}
	if l := tr.Live(); l.Text != "" {
		t.Errorf("live text left after the final event: %q", l.Text)
	}
	local, web, used := tr.RetrievalCounts()
	if local != 3 || web != 2 || used != 3 {
		t.Errorf("retrieval counts = %d local, %d web, %d used; want 3, 2, 3", local, web, used)
	}
	if n := len(tr.Events); n != len(scripted.Stored(start)) {
		t.Errorf("kept %d events, want %d (tokens are not kept)", n, len(scripted.Stored(start)))
	}
}

func TestDiscardedAndContext(t *testing.T) {
	tr := FromEvents(scripted.Stored(start))
	switched := tr.Blocks[1]
	d := tr.Discarded(switched)
	if len(d) != 3 || d[0].Title != "Franz Kafka" {
		t.Fatalf("discarded = %v, want the 3 local documents of step 2", d)
	}
	obs := tr.ObservedDocs(switched)
	if len(obs) != 3 || obs[0].Source != "web:duckduckgo" {
		t.Fatalf("observed = %v, want the 3 web documents", obs)
	}
	tests := []struct {
		block int
		nums  []int
	}{
		{0, nil},
		{1, []int{1, 2, 3}},
		{2, []int{1, 2, 3, 4, 5, 6}},
		{4, []int{1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tt := range tests {
		ctx := tr.ContextBefore(tt.block)
		var nums []int
		for _, c := range ctx {
			nums = append(nums, c.Num)
		}
		if len(nums) != len(tt.nums) {
			t.Errorf("context before block %d = %v, want %v", tt.block, nums, tt.nums)
			continue
		}
		for i := range nums {
			if nums[i] != tt.nums[i] {
				t.Errorf("context before block %d = %v, want %v", tt.block, nums, tt.nums)
				break
			}
		}
	}
}

func TestLiveTokens(t *testing.T) {
	tr := New()
	for _, tok := range []string{"Thought: ", "I ", "need"} {
		tr.Apply(engine.Event{Step: 1, Payload: engine.Token{Role: "step", Text: tok}})
	}
	if l := tr.Live(); l.Text != "Thought: I need" || l.Step != 1 {
		t.Fatalf("live = %+v", l)
	}
	v := tr.LiveVersion()
	tr.Apply(engine.Event{Step: 1, Payload: engine.Token{Role: "judge", Text: "{"}})
	if l := tr.Live(); l.Text != "{" || l.Role != "judge" {
		t.Fatalf("a new role must restart the live text: %+v", l)
	}
	if tr.LiveVersion() == v {
		t.Fatal("live version did not change")
	}
	tr.Apply(engine.Event{Step: 1, Payload: engine.Thought{Text: "I need"}})
	if l := tr.Live(); l.Text != "" {
		t.Fatalf("a parsed event must clear the live text: %+v", l)
	}
	if tr.Tokens != 4 {
		t.Fatalf("Tokens = %d, want 4", tr.Tokens)
	}
}

func TestErrorsLandInPlace(t *testing.T) {
	tr := New()
	tr.Apply(engine.Event{Payload: engine.Notice{Message: "cannot reach the ollama server", Fatal: true}})
	if len(tr.Errors) != 1 {
		t.Fatalf("an error before any step belongs to the trajectory: %+v", tr.Errors)
	}
	tr.Apply(engine.Event{Step: 1, Payload: engine.Action{Query: "q"}})
	tr.Apply(engine.Event{Step: 1, Payload: engine.Notice{Message: "reply needed a second try"}})
	if len(tr.Blocks[0].Errors) != 1 {
		t.Fatalf("a step error belongs to its block: %+v", tr.Blocks[0])
	}
	tr.Apply(engine.Event{Step: 1, Payload: engine.Retrieval{Source: "web:duckduckgo"}})
	tr.Apply(engine.Event{Step: 1, Payload: engine.Notice{Source: "web:duckduckgo", Message: "blocked"}})
	if tr.Blocks[0].Trace[1].Error == nil {
		t.Fatalf("a search error belongs after its search: %+v", tr.Blocks[0].Trace)
	}
}
