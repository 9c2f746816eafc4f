package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/llm"
)

// Guards for two design rules that a test model cutting at the stop
// sequence itself cannot see: the engine cuts text the model writes after
// its own "Observation:" (servers that ignore stop sequences), and a
// reflection turn does not consume a step.

// TestEngineCutsObservationsTheModelWrites runs the loop against a script
// model that ignores the stop sequence, as some servers do: whatever the
// model wrote after its own Observation must reach neither a later prompt
// nor an event, on every path that keeps model text (an action, the
// corrective retry, the forced answer).
func TestEngineCutsObservationsTheModelWrites(t *testing.T) {
	const invented = "INVENTED-FACT-42"
	tests := []struct {
		name       string
		steps      []reply
		judges     []reply
		maxSteps   int
		wantAnswer string
		wantForced bool
		wantQuery  string
	}{
		{
			name: "action then invented observation and answer",
			steps: []reply{
				{text: "Thought: search\nAction: Search_Engine\nAction Input: alpha\nObservation: " + invented + "\nThought: done\nFinal Answer: " + invented},
				{text: "Thought: ok\nFinal Answer: right\nSelf-Evaluation: CORRECT"},
			},
			judges:     []reply{judgeJSON(true, "ok")},
			wantAnswer: "right",
			wantQuery:  "alpha",
		},
		{
			name: "observation inline after the action input",
			steps: []reply{
				{text: "Thought: search\nAction: Search_Engine\nAction Input: alpha Observation: " + invented},
				{text: "Final Answer: right\nSelf-Evaluation: CORRECT"},
			},
			judges:     []reply{judgeJSON(true, "ok")},
			wantAnswer: "right",
			wantQuery:  "alpha",
		},
		{
			name: "unparseable reply kept for the corrective retry",
			steps: []reply{
				{text: "I wonder.\nObservation: " + invented},
				{text: "Final Answer: right\nSelf-Evaluation: CORRECT"},
			},
			wantAnswer: "right",
		},
		{
			name: "forced answer",
			steps: []reply{
				{text: "Action: Search_Engine\nAction Input: alpha"},
				{text: "Action: Search_Engine\nAction Input: alpha again"},
				{text: "right\nObservation: " + invented},
			},
			judges:     []reply{judgeJSON(true, "ok"), judgeJSON(true, "ok")},
			maxSteps:   1, // hard limit 2: two actions, then the forced answer
			wantAnswer: "right",
			wantForced: true,
			wantQuery:  "alpha",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.llm.ignoreStop = true
			h.local.answers["alpha"] = []Document{doc("local:wiki", "a1", "Alpha", "the real document text")}
			h.llm.steps = tt.steps
			h.llm.judges = tt.judges
			res, err := h.run(t, "Q?", func(s *Settings) {
				if tt.maxSteps > 0 {
					s.MaxSteps = tt.maxSteps
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != tt.wantAnswer || res.Forced != tt.wantForced {
				t.Errorf("answer %q forced %v, want %q forced %v", res.Answer, res.Forced, tt.wantAnswer, tt.wantForced)
			}
			if tt.wantQuery != "" {
				if q := h.local.queries; len(q) == 0 || q[0] != tt.wantQuery {
					t.Errorf("queries = %q, want %q first", q, tt.wantQuery)
				}
			}
			var all []llm.Request
			h.llm.mu.Lock()
			all = append(all, h.llm.reqs...)
			h.llm.mu.Unlock()
			if len(all) < 2 {
				t.Fatalf("only %d model calls", len(all))
			}
			for i, r := range all {
				if strings.Contains(r.Prompt, invented) {
					t.Errorf("call %d (%s): the model's own observation entered the prompt:\n%s", i+1, r.Purpose, tail(r.Prompt, 400))
				}
			}
			h.rec.mu.Lock()
			defer h.rec.mu.Unlock()
			for _, e := range h.rec.events {
				if e.Type() == EventToken {
					continue // tokens show what the server streamed, as it streamed it
				}
				if b, _ := json.Marshal(e); strings.Contains(string(b), invented) {
					t.Errorf("%s event carries the model's own observation: %+v", e.Type(), e)
				}
			}
		})
	}
}

// TestReflectionDoesNotConsumeAStep: with max_steps N the model has N+1
// actions whether or not a reflection supplement happened before, between
// or after them.
func TestReflectionDoesNotConsumeAStep(t *testing.T) {
	act := func(q string) reply { return reply{text: "Thought: look\nAction: Search_Engine\nAction Input: " + q} }
	incorrect := reply{text: "Thought: unsure\nFinal Answer: unknown\nSelf-Evaluation: INCORRECT\nExplanation: nothing\nImprovement Suggestions: search more"}
	correct := reply{text: "Thought: found\nFinal Answer: 1974\nSelf-Evaluation: CORRECT"}
	ok := judgeJSON(true, "ok")
	tests := []struct {
		name        string
		maxSteps    int
		steps       []reply
		judges      []reply
		wantActions int
		wantForced  bool
	}{
		// Hard limit 2: one action, the reflection, then the answer is
		// still a reasoning step of its own.
		{"reflection after an action", 1, []reply{act("a"), incorrect, correct}, []reply{ok}, 1, false},
		// Hard limit 2: the reflection first, then both actions, then the
		// forced answer.
		{"reflection before the hard limit's actions", 1, []reply{incorrect, act("a"), act("b"), {text: "1974"}}, []reply{ok, ok}, 2, true},
		// Hard limit 4: all four actions, the reflection, then the answer.
		{"default limits used up", 3, []reply{act("a"), act("b"), act("c"), incorrect, act("d"), {text: "1974"}}, []reply{ok, ok, ok, ok}, 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.llm.steps = tt.steps
			h.llm.judges = tt.judges
			res, err := h.run(t, "Q?", func(s *Settings) {
				s.MaxSteps = tt.maxSteps
				s.MaxReflections = 1
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(payloads[Action](h.rec)); n != tt.wantActions {
				t.Errorf("actions = %d, want %d; events %v", n, tt.wantActions, h.rec.types())
			}
			if n := len(payloads[Supplement](h.rec)); n != 1 || res.Counts.Reflections != 1 {
				t.Errorf("supplements = %d, reflections = %d, want 1", n, res.Counts.Reflections)
			}
			if res.Forced != tt.wantForced || res.Answer != "1974" {
				t.Errorf("answer %q forced %v, want 1974 forced %v", res.Answer, res.Forced, tt.wantForced)
			}
			h.llm.mu.Lock()
			left := len(h.llm.steps)
			h.llm.mu.Unlock()
			if left != 0 {
				t.Errorf("%d scripted replies never asked for", left)
			}
		})
	}
}
