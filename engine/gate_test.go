package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/llm"
)

func gateJSON(retrieve bool, analysis string) reply {
	return reply{text: fmt.Sprintf(`{"analysis": %q, "retrieve": %v}`, analysis, retrieve)}
}

func gateOf(t *testing.T, h *harness) []Gate {
	t.Helper()
	var out []Gate
	for _, g := range payloads[Gate](h.rec) {
		out = append(out, g)
	}
	return out
}

// A question the model knows is answered without any retrieval, by every
// gated strategy: no retrieval event, no search request, the gate's reason
// in its event.
func TestGateAnswersKnownQuestionWithoutRetrieval(t *testing.T) {
	for _, strategy := range []string{StrategySlimPLM, StrategySmartRAG, StrategyPrefRAGGated} {
		t.Run(strategy, func(t *testing.T) {
			h := newHarness(t)
			h.local.answers["france"] = []Document{doc("local:wiki", "d1", "France", "Paris is the capital of France.")}
			h.llm.judges = []reply{{text: "The capital of France is Paris."}, gateJSON(false, "well-known, stable fact")}
			h.llm.steps = []reply{{text: "Final Answer: Paris"}}
			res, err := h.run(t, "What is the capital of France?", func(s *Settings) { s.Strategy = strategy })
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"session", "gate", "answer", "final"}
			if got := h.rec.types(); !equalStrings(got, want) {
				t.Fatalf("events\n got %v\nwant %v", got, want)
			}
			if len(h.local.queries)+len(h.web.queries) != 0 {
				t.Errorf("searches sent: local %v web %v", h.local.queries, h.web.queries)
			}
			g := gateOf(t, h)[0]
			if g.Retrieve || g.Analysis != "well-known, stable fact" || g.HeuristicAnswer != "The capital of France is Paris." || len(g.Queries) != 0 {
				t.Errorf("gate = %+v", g)
			}
			c := res.Counts
			if res.Answer != "Paris" || c.TotalRetrievals() != 0 || c.ProxyCalls != 2 || c.LLMCalls != 3 || c.JudgeCalls != 0 || c.StepCalls != 1 || c.ProxyPromptTokens == 0 {
				t.Errorf("answer %q counts %+v", res.Answer, c)
			}
			// The direct answer prompt holds no documents.
			if p := h.llm.prompts(llm.PurposeAnswer); len(p) != 1 || strings.Contains(p[0], "Documents:") {
				t.Errorf("answer prompts = %q", p)
			}
		})
	}
}

// SlimPLM: the heuristic answer's uncertain claims are the first (and
// only) searches, and the answer call sees their documents.
func TestSlimPLMClaimQueriesAreTheSearches(t *testing.T) {
	h := newHarness(t)
	h.local.answers["olsen"] = []Document{doc("local:wiki", "d2", "Carsten Olsen", "Carsten Olsen (1891–1974) was a Danish plant ecologist.")}
	h.local.answers["chemist"] = []Document{doc("local:wiki", "d1", "S. P. L. Sørensen", "Sørensen was a Danish chemist who introduced pH.")}
	h.llm.judges = []reply{
		{text: "The ecologist was Carsten Olsen, who died in 1980 (unsure)."},
		gateJSON(true, "the year is uncertain"),
		{text: "1. Query: Carsten Olsen death year\n2. Query: Danish chemist who introduced pH\n3. Query: carsten olsen death year"},
	}
	h.llm.steps = []reply{{text: "Final Answer: 1974 [1]"}}
	res, err := h.run(t, caseQuestion, func(s *Settings) { s.Strategy = StrategySlimPLM })
	if err != nil {
		t.Fatal(err)
	}
	wantQ := []string{"Carsten Olsen death year", "Danish chemist who introduced pH"}
	if !equalStrings(h.local.queries, wantQ) {
		t.Errorf("searches = %q, want %q", h.local.queries, wantQ)
	}
	if g := gateOf(t, h); len(g) != 1 || !g[0].Retrieve || !equalStrings(g[0].Queries, wantQ) {
		t.Errorf("gate = %+v", g)
	}
	want := []string{"session", "gate", "retrieval", "observation", "retrieval", "observation", "answer", "evidence", "final"}
	if got := h.rec.types(); !equalStrings(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	p := h.llm.prompts(llm.PurposeAnswer)
	if len(p) != 1 || !strings.Contains(p[0], "(1891–1974)") || !strings.Contains(p[0], "introduced pH") {
		t.Errorf("answer prompt = %q", p)
	}
	if c := res.Counts; c.LocalRetrievals != 2 || c.ProxyCalls != 3 || c.LLMCalls != 4 || res.Answer != "1974 [1]" {
		t.Errorf("answer %q counts %+v", res.Answer, c)
	}
}

// SmartRAG: a rewritten first query, then the proxy decides after each
// search (another query, then answer), bounded by max_steps.
func TestSmartRAGDecideRewriteAnswer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxSteps int
		decides  []reply
		wantQ    []string
	}{
		{"decides to stop", 5, []reply{
			{text: `{"analysis": "the chemist is missing", "retrieve": true, "query": "Danish chemist pH"}`},
			{text: `{"analysis": "enough", "retrieve": false, "query": ""}`},
		}, []string{"Carsten Olsen death", "Danish chemist pH"}},
		{"bounded by max_steps", 2, []reply{
			{text: `{"analysis": "more", "retrieve": true, "query": "Danish chemist pH"}`},
		}, []string{"Carsten Olsen death", "Danish chemist pH"}},
		{"repeated query ends the loop", 5, []reply{
			{text: `{"analysis": "again", "retrieve": true, "query": "carsten olsen death"}`},
		}, []string{"Carsten Olsen death"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.local.answers["olsen"] = []Document{doc("local:wiki", "d2", "Carsten Olsen", "Carsten Olsen (1891–1974).")}
			h.local.answers["chemist"] = []Document{doc("local:wiki", "d1", "Sørensen", "Sørensen introduced pH.")}
			h.llm.judges = append([]reply{{text: "Maybe 1980."}, gateJSON(true, "unsure"), {text: "Query: Carsten Olsen death"}}, tc.decides...)
			h.llm.steps = []reply{{text: "Final Answer: 1974"}}
			res, err := h.run(t, caseQuestion, func(s *Settings) { s.Strategy = StrategySmartRAG; s.MaxSteps = tc.maxSteps })
			if err != nil {
				t.Fatal(err)
			}
			if !equalStrings(h.local.queries, tc.wantQ) {
				t.Errorf("searches = %q, want %q", h.local.queries, tc.wantQ)
			}
			if g := gateOf(t, h); len(g) != 1+len(tc.decides) || !equalStrings(g[0].Queries, tc.wantQ[:1]) {
				t.Errorf("gates = %+v", g)
			}
			if res.Answer != "1974" || res.Counts.ProxyCalls != 3+len(tc.decides) || len(h.llm.judges) != 0 {
				t.Errorf("answer %q counts %+v, %d judge replies left", res.Answer, res.Counts, len(h.llm.judges))
			}
		})
	}
}

// PrefRAG behind the gate: the gate's claim queries are PrefRAG's first
// searches, in the scratchpad as actions, and the loop goes on from there.
func TestPrefRAGGatedSeedsTheLoop(t *testing.T) {
	h := newHarness(t)
	h.local.answers["chemist"] = []Document{doc("local:wiki", "d1", "S. P. L. Sørensen", "Sørensen was a Danish chemist who introduced pH.")}
	h.web.answers["ecologist"] = []Document{{ID: "https://example.org/olsen", Title: "Carsten Olsen", Text: "Carsten Olsen (1891–1974).", URL: "https://example.org/olsen", Source: "web:duckduckgo"}}
	h.llm.judges = []reply{
		{text: "Perhaps 1980 (unsure)."},
		gateJSON(true, "the names are uncertain"),
		{text: "Query: Danish chemist who introduced pH"},
		judgeJSON(true, "names the chemist"),
	}
	h.llm.steps = []reply{
		{text: "Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT\nExplanation: from [1]."},
	}
	res, err := h.run(t, caseQuestion, func(s *Settings) { s.Strategy = StrategyPrefRAGGated })
	if err != nil {
		t.Fatal(err)
	}
	if len(h.local.queries) == 0 || h.local.queries[0] != "Danish chemist who introduced pH" {
		t.Errorf("first search = %q", h.local.queries)
	}
	want := []string{"session", "gate", "action", "retrieval", "selection", "observation", "thought", "answer", "final"}
	if got := h.rec.types(); !equalStrings(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	steps := h.llm.prompts(llm.PurposeStep)
	if len(steps) != 1 || !strings.Contains(steps[0], "Action Input: Danish chemist who introduced pH\n\nObservation: ") && !strings.Contains(steps[0], "Action Input: Danish chemist who introduced pH\nObservation: ") {
		t.Errorf("step prompt does not hold the seeded action and its observation: %q", tail(steps[0], 400))
	}
	if res.Answer != "1974" || res.Counts.ProxyCalls != 3 || res.Counts.StepCalls != 1 || res.Counts.JudgeCalls != 1 {
		t.Errorf("answer %q counts %+v", res.Answer, res.Counts)
	}
}

// Gate text is model output: it goes through sanitize like every event.
func TestGateEventIsSanitized(t *testing.T) {
	h := newHarness(t)
	h.llm.judges = []reply{{text: "Paris\x1b]0;pwned\x07 \u202eevil"}, {text: `{"analysis": "known\u001b[2J", "retrieve": false}`}}
	h.llm.steps = []reply{{text: "Final Answer: Paris"}}
	if _, err := h.run(t, "What is the capital of France?", func(s *Settings) { s.Strategy = StrategySlimPLM }); err != nil {
		t.Fatal(err)
	}
	g := gateOf(t, h)[0]
	for _, s := range []string{g.HeuristicAnswer, g.Analysis} {
		if strings.ContainsAny(s, "\x1b\x07\u202e") {
			t.Errorf("unsanitized gate text %q", s)
		}
	}
}

func TestParseGateDecision(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want GateDecision
	}{
		{`{"analysis": "known", "retrieve": false}`, GateDecision{Analysis: "known"}},
		{"```json\n{\"analysis\": \"x\", \"retrieve\": \"True\", \"query\": \" q \"}\n```", GateDecision{Analysis: "x", Retrieve: true, Query: "q"}},
		{`{"analysis": "x", "retrieve": "no"}`, GateDecision{Analysis: "x"}},
		{`I think no retrieval`, GateDecision{Retrieve: true, Malformed: true}},
		{`{"analysis": "half`, GateDecision{Retrieve: true, Malformed: true}},
	} {
		if got := ParseGateDecision(tc.in); got != tc.want {
			t.Errorf("ParseGateDecision(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestParseGateQueries(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want []string
	}{
		{"Query: a b\nQuery: c", 3, []string{"a b", "c"}},
		{"Claims:\n- Query: \"a\"\n2) query: A\n3. Query: d\nQuery: e", 2, []string{"a", "d"}},
		{"just a line\n\n- another", 3, []string{"just a line", "another"}},
		{"", 3, nil},
		{"Query: ", 3, nil},
	} {
		if got := ParseGateQueries(tc.in, tc.max); !equalStrings(got, tc.want) {
			t.Errorf("ParseGateQueries(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzParseGate(f *testing.F) {
	f.Add(`{"analysis": "x", "retrieve": true, "query": "q"}`)
	f.Add("Query: a\n- Query: b\n1) c")
	f.Fuzz(func(t *testing.T, s string) {
		d := ParseGateDecision(s)
		if d.Malformed && !d.Retrieve {
			t.Fatalf("malformed reply must mean retrieve: %+v", d)
		}
		qs := ParseGateQueries(s, 3)
		if len(qs) > 3 {
			t.Fatalf("%d queries", len(qs))
		}
		for _, q := range qs {
			if q == "" || len(q) > maxQueryLen || strings.Contains(q, "\n") {
				t.Fatalf("bad query %q", q)
			}
		}
	})
}
