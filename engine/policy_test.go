package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
)

func TestBaselines(t *testing.T) {
	tests := []struct {
		strategy          string
		local, web, calls int
	}{
		{StrategyNoRetrieval, 0, 0, 1},
		{StrategyVanillaLocal, 1, 0, 1},
		{StrategyVanillaWeb, 0, 1, 1},
		{StrategyVanillaMix, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.strategy, func(t *testing.T) {
			h := newHarness(t)
			h.local.answers["q"] = []Document{doc("local:wiki", "a1", "A", "alpha")}
			h.web.answers["q"] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
			h.llm.steps = []reply{{text: "Final Answer: Paris"}}
			res, err := h.run(t, "q?", func(s *Settings) { s.Strategy = tt.strategy })
			if err != nil {
				t.Fatal(err)
			}
			c := res.Counts
			if res.Answer != "Paris" || c.LocalRetrievals != tt.local || c.WebRetrievals != tt.web || c.LLMCalls != tt.calls {
				t.Errorf("res %+v", res)
			}
		})
	}
	t.Run("react follows the model's tool", func(t *testing.T) {
		h := newHarness(t)
		h.web.answers["b"] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
		h.llm.steps = []reply{{text: "Thought: t\nAction: Search_Web\nAction Input: b"}, {text: "Final Answer: x\nSelf-Evaluation: INCORRECT"}}
		res, err := h.run(t, "q?", func(s *Settings) { s.Strategy = StrategyReAct })
		if err != nil {
			t.Fatal(err)
		}
		if res.Counts.WebRetrievals != 1 || res.Counts.LocalRetrievals != 0 || res.Counts.JudgeCalls != 0 || res.Counts.Reflections != 0 {
			t.Errorf("react counts %+v", res.Counts)
		}
		if p := h.llm.prompts(llm.PurposeStep)[0]; !strings.Contains(p, "Search_Wiki") || !strings.Contains(p, "Search_Web") {
			t.Error("react must advertise one tool per source")
		}
	})
	t.Run("react-mix searches both every step", func(t *testing.T) {
		h := newHarness(t)
		h.local.answers["b"] = []Document{doc("local:wiki", "a1", "A", "alpha")}
		h.web.answers["b"] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
		h.llm.steps = []reply{{text: "Thought: t\nAction: Search_Engine\nAction Input: b"}, {text: "Final Answer: x"}}
		res, err := h.run(t, "q?", func(s *Settings) { s.Strategy = StrategyReActMix })
		if err != nil {
			t.Fatal(err)
		}
		if res.Counts.WebRetrievals != 1 || res.Counts.LocalRetrievals != 1 || res.Counts.UsedRetrievals != 2 || res.Counts.UsedDocs != 2 {
			t.Errorf("react-mix counts %+v", res.Counts)
		}
	})
}

func TestThreeSourcesSwitchOrder(t *testing.T) {
	notes := &memSource{name: "local:notes", kind: sources.KindLocal, answers: map[string][]Document{"a": {doc("local:notes", "n1", "N", "from notes")}}}
	h := newHarness(t, notes)
	h.local.answers["a"] = []Document{doc("local:wiki", "a1", "A", "alpha")}
	h.web.answers["b"] = []Document{{ID: "u", Title: "W", Text: "from the web", Source: "web:duckduckgo"}}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: a"},
		{text: "Thought: t\nAction: Search_Web\nAction Input: b"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "no"), judgeJSON(false, "no")}
	if _, err := h.run(t, "Q?", nil); err != nil {
		t.Fatal(err)
	}
	sel := payloads[Selection](h.rec)
	if *sel[0].NextSource != "local:notes" || *sel[1].NextSource != "web:duckduckgo" {
		t.Errorf("switch order: %q then %q", *sel[0].NextSource, *sel[1].NextSource)
	}
	obs := payloads[Observation](h.rec)
	if obs[0].Source != "local:notes" || obs[1].Source != "web:duckduckgo" {
		t.Errorf("observation sources %q %q", obs[0].Source, obs[1].Source)
	}
}

func TestNeverLeaveCorpusNeedsConsent(t *testing.T) {
	for _, withConsent := range []bool{false, true} {
		h := newHarness(t)
		h.local.answers["a"] = []Document{doc("local:wiki", "a1", "A", "secret plan")}
		h.web.answers["b"] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
		h.llm.steps = []reply{
			{text: "Thought: t\nAction: Search_Engine\nAction Input: a"},
			{text: "Thought: t\nAction: Search_Engine\nAction Input: b"},
			{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
		}
		h.llm.judges = []reply{judgeJSON(true, "ok"), judgeJSON(false, "need web")}
		asked := 0
		var consent ConsentFunc
		if withConsent {
			consent = func(ctx context.Context, r ConsentRequest) (Consent, error) {
				asked++
				if !strings.Contains(r.Analysis, "never-leave") {
					t.Errorf("consent request does not say why: %q", r.Analysis)
				}
				return ConsentOnce, nil
			}
		}
		s := DefaultSettings()
		s.NeverLeave = []string{"wiki"}
		res, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit, Consent: consent})
		if err != nil {
			t.Fatal(err)
		}
		if withConsent && (asked != 1 || res.Counts.WebRetrievals != 1) {
			t.Errorf("with consent: asked %d, web %d", asked, res.Counts.WebRetrievals)
		}
		if !withConsent && (len(h.web.queries) != 0 || !strings.Contains(payloads[Observation](h.rec)[1].Note, "never-leave")) {
			t.Errorf("headless: web queries %v, note %q", h.web.queries, payloads[Observation](h.rec)[1].Note)
		}
	}
}

func TestWebAskConsent(t *testing.T) {
	tests := []struct {
		name      string
		consent   ConsentFunc
		wantWeb   int
		wantNote  string
		wantAsked int
	}{
		{"deny", func(context.Context, ConsentRequest) (Consent, error) { return ConsentDeny, nil }, 0, "declined", 1},
		{"allow once", func(context.Context, ConsentRequest) (Consent, error) { return ConsentOnce, nil }, 1, "", 1},
		{"headless acts as never", nil, 0, "has no one to ask for consent", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.local.answers["a"] = []Document{doc("local:wiki", "a1", "A", "alpha")}
			h.web.answers["a"] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
			h.llm.steps = []reply{{text: "Thought: t\nAction: Search_Engine\nAction Input: a"}, {text: "Final Answer: x\nSelf-Evaluation: CORRECT"}}
			if tt.consent != nil {
				h.llm.judges = []reply{judgeJSON(false, "local lacks it")}
			}
			asked := 0
			var consent ConsentFunc
			if tt.consent != nil {
				consent = func(ctx context.Context, r ConsentRequest) (Consent, error) {
					asked++
					if r.Query != "a" || r.Analysis != "local lacks it" {
						t.Errorf("consent request = %+v", r)
					}
					return tt.consent(ctx, r)
				}
			}
			s := DefaultSettings()
			s.Web = WebAsk
			res, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit, Consent: consent})
			if err != nil {
				t.Fatal(err)
			}
			if res.Counts.WebRetrievals != tt.wantWeb || asked != tt.wantAsked {
				t.Errorf("web retrievals %d asked %d", res.Counts.WebRetrievals, asked)
			}
			if note := payloads[Observation](h.rec)[0].Note; !strings.Contains(note, tt.wantNote) {
				t.Errorf("note = %q, want %q", note, tt.wantNote)
			}
		})
	}
}

func TestWebNeverSingleSourceNoJudge(t *testing.T) {
	h := newHarness(t)
	h.local.answers["a"] = []Document{doc("local:wiki", "a1", "A", "alpha")}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: a"},
		{text: "Final Answer: x\nSelf-Evaluation: INCORRECT"},
		{text: "Final Answer: y\nSelf-Evaluation: CORRECT"},
	}
	res, err := h.run(t, "Q?", func(s *Settings) { s.Web = WebNever })
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.JudgeCalls != 0 || res.Counts.WebRetrievals != 0 || len(h.web.queries) != 0 {
		t.Errorf("web never: counts %+v, web queries %v", res.Counts, h.web.queries)
	}
	obs := payloads[Observation](h.rec)[0]
	if !strings.Contains(obs.Note, "never") {
		t.Errorf("observation note = %q", obs.Note)
	}
}

// Under web policy "ask" with no one to ask (a pipe, a script, an agent
// over MCP), the note says so; it does not send the user to a terminal
// that an agent's user cannot use.
func TestWebAskWithNoOneToAsk(t *testing.T) {
	h := newHarness(t)
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: heron"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "not enough")}
	if _, err := h.run(t, "Q?", func(s *Settings) { s.Web = WebAsk }); err != nil {
		t.Fatal(err)
	}
	obs := payloads[Observation](h.rec)
	if len(h.web.queries) != 0 || len(obs) != 1 || !strings.Contains(obs[0].Note, `policy "ask" has no one to ask for consent here, so it acts as "never"`) || strings.Contains(obs[0].Note, "terminal") {
		t.Errorf("web queries %q, observations %+v", h.web.queries, obs)
	}
}
