package engine

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
)

// filler is a document text of about n characters made of word.
func filler(word string, n int) string {
	return strings.TrimSpace(strings.Repeat(word+" ", n/(len(word)+1)))
}

// refineScript: two searches whose observations together pass the budget
// of a small server slot, then the answer.
func refineScript(t *testing.T, strategy string, refineReply string) (*harness, Settings, Result) {
	t.Helper()
	h := newHarness(t)
	h.local.answers["alpha"] = []Document{doc("local:wiki", "a1", "Alpha", filler("alphafact", 3600))}
	h.local.answers["beta"] = []Document{doc("local:wiki", "b1", "Beta", filler("betafact", 3600))}
	h.llm.steps = []reply{
		{text: "Thought: first alpha.\nAction: Search_Engine\nAction Input: alpha"},
		{text: "Thought: then beta.\nAction: Search_Engine\nAction Input: beta"},
	}
	if refineReply != "" {
		h.llm.steps = append(h.llm.steps, reply{text: refineReply})
	}
	h.llm.steps = append(h.llm.steps, reply{text: "Thought: done.\nFinal Answer: gamma [2]\nSelf-Evaluation: CORRECT"})
	h.llm.judges = []reply{judgeJSON(true, "ok"), judgeJSON(true, "ok")}
	var used Settings
	res, err := h.run(t, "How are alpha and beta related?", func(s *Settings) {
		s.Strategy = strategy
		s.ServerCtx = 2600 // output limit 650, budget 2210-650 = 1560 tokens
		used = *s
	})
	if err != nil {
		t.Fatal(err)
	}
	return h, used, res
}

// reasoning lists the step and forced prompts in order.
func reasoning(h *harness) []string {
	var out []string
	h.llm.mu.Lock()
	defer h.llm.mu.Unlock()
	for _, r := range h.llm.reqs {
		if r.Purpose == llm.PurposeStep || r.Purpose == llm.PurposeForced {
			out = append(out, r.Prompt)
		}
	}
	return out
}

func observationText(t *testing.T, num int, d Document) string {
	t.Helper()
	text, err := prompts.MustDefault().Observation(prompts.ObservationData{Docs: []prompts.ObservedDoc{{Num: num, Title: d.Title, Text: d.Text}}})
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func TestRefinementAtTheBudget(t *testing.T) {
	const note = "alpha is the first fact [1]."
	h, s, res := refineScript(t, StrategyPrefRAG, note)
	budget := s.PromptBudget()
	if budget != 1560 {
		t.Fatalf("budget %d, want 1560 (85%% of the server's 2600 minus the 650-token generation limit)", budget)
	}
	ps := reasoning(h)
	if len(ps) != 3 {
		t.Fatalf("%d reasoning prompts, want 3", len(ps))
	}
	for i, p := range ps {
		if est := llm.EstimateTokens(p); est > budget {
			t.Errorf("prompt %d is about %d tokens, over the budget %d", i+1, est, budget)
		}
	}
	// Without refinement the last prompt would not have fitted.
	obs1 := observationText(t, 1, h.local.answers["alpha"][0])
	obs2 := observationText(t, 2, h.local.answers["beta"][0])
	if llm.EstimateTokens(ps[1])+llm.EstimateTokens(obs2) <= budget {
		t.Fatalf("the script does not pass the budget: calibrate the documents")
	}
	last := ps[2]
	if !strings.HasSuffix(last, "\nObservation: "+obs2) {
		t.Errorf("the newest observation is not kept byte for byte; prompt tail %q", tail(last, 300))
	}
	if strings.Contains(last, obs1) || !strings.Contains(last, note) {
		t.Errorf("the earlier observation was not replaced by the note")
	}
	// The text before the first observation is unchanged (cache reuse).
	head := ps[1][:strings.Index(ps[1], "\nObservation: ")]
	if !strings.HasPrefix(last, head) {
		t.Errorf("refinement changed text before the first observation")
	}
	refs := h.llm.prompts(llm.PurposeRefine)
	if len(refs) != 1 {
		t.Fatalf("%d refinement calls, want 1", len(refs))
	}
	if r := refs[0]; !strings.Contains(r, obs1) || strings.Contains(r, obs2) || !strings.Contains(r, "How are alpha and beta related?") || !strings.Contains(r, "beta") {
		t.Errorf("refinement prompt lacks the question, the last query or the earlier observation, or holds the newest: %q", tail(r, 400))
	}
	evs := payloads[Refinement](h.rec)
	if len(evs) != 1 {
		t.Fatalf("%d refinement events, want 1: %v", len(evs), h.rec.types())
	}
	p := evs[0]
	if p.BeforeChars != len(obs1) || p.AfterChars == 0 || p.AfterChars >= p.BeforeChars || len(p.Steps) != 1 || p.Steps[0] != 1 {
		t.Errorf("refinement payload %+v (observation 1 was %d chars)", p, len(obs1))
	}
	if res.Counts.Refinements != 1 || h.rec.final(t).Counts.Refinements != 1 {
		t.Errorf("refinements counted %d", res.Counts.Refinements)
	}
	if res.Counts.StepCalls != 3 {
		t.Errorf("step calls %d, want 3 (the refinement is not a step)", res.Counts.StepCalls)
	}
	sess := payloads[SessionStart](h.rec)
	if len(sess) != 1 || sess[0].Config.RefineBudget != DefaultRefineBudget {
		t.Errorf("the session does not record the refine budget: %+v", sess)
	}
}

func TestNoORSWarnsInsteadOfRefining(t *testing.T) {
	h, _, res := refineScript(t, StrategyPrefRAGNoORS, "")
	if n := len(payloads[Refinement](h.rec)); n != 0 || res.Counts.Refinements != 0 {
		t.Errorf("%d refinement events, %d counted; want none", n, res.Counts.Refinements)
	}
	ps := reasoning(h)
	obs1 := observationText(t, 1, h.local.answers["alpha"][0])
	if !strings.Contains(ps[len(ps)-1], obs1) {
		t.Errorf("the earlier observation was changed without refinement")
	}
	var warned bool
	for _, e := range payloads[Notice](h.rec) {
		if !e.Fatal && strings.Contains(e.Message, "does not refine observations") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no budget warning: %+v", payloads[Notice](h.rec))
	}
}

func TestOldestNoteDroppedWhenRefinementCannotFit(t *testing.T) {
	// A refinement that barely shortens: even refined, the prompt does
	// not fit, so the note is dropped, said in a non-fatal error event.
	long := filler("notefact", 2300)
	h, s, _ := refineScript(t, StrategyPrefRAG, long)
	ps := reasoning(h)
	last := ps[len(ps)-1]
	if strings.Contains(last, long) || !strings.Contains(last, droppedNote) {
		t.Errorf("the note was not dropped; tail %q", tail(last, 200))
	}
	if est := llm.EstimateTokens(last); est > s.PromptBudget() {
		t.Errorf("last prompt about %d tokens, over the budget %d", est, s.PromptBudget())
	}
	obs2 := observationText(t, 2, h.local.answers["beta"][0])
	if !strings.HasSuffix(last, obs2) {
		t.Errorf("the newest observation was not kept whole")
	}
	var notice bool
	for _, e := range payloads[Notice](h.rec) {
		if !e.Fatal && strings.Contains(e.Message, "oldest refined note was dropped") {
			notice = true
		}
	}
	if !notice {
		t.Errorf("no notice of the dropped note: %+v", payloads[Notice](h.rec))
	}
	if n := len(payloads[Refinement](h.rec)); n != 1 {
		t.Errorf("%d refinement events, want 1", n)
	}
}

func TestPromptBudget(t *testing.T) {
	for _, tt := range []struct {
		name string
		mod  func(*Settings)
		want int
	}{
		{"num_ctx when the server says nothing", func(s *Settings) {}, 16384*85/100 - 1024},
		{"the server's slot wins", func(s *Settings) { s.ServerCtx = 4096 }, 4096*85/100 - 1024},
		{"a quarter of a small slot", func(s *Settings) { s.ServerCtx = 2000 }, 1700 - 500},
		{"own share", func(s *Settings) { s.ServerCtx = 4096; s.RefineBudget = 50 }, 2048 - 1024},
		{"zero share is the default", func(s *Settings) { s.RefineBudget = 0 }, 16384*85/100 - 1024},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSettings()
			tt.mod(&s)
			if got := s.PromptBudget(); got != tt.want {
				t.Errorf("budget %d, want %d", got, tt.want)
			}
		})
	}
}

func TestRefineBudgetValidated(t *testing.T) {
	for _, tt := range []struct {
		pct int
		ok  bool
	}{{0, true}, {10, true}, {85, true}, {100, true}, {9, false}, {101, false}, {-1, false}} {
		s := DefaultSettings()
		s.RefineBudget = tt.pct
		if err := s.Validate(); (err == nil) != tt.ok || (err != nil && !strings.Contains(err.Error(), "refine_budget")) {
			t.Errorf("refine_budget %d: %v", tt.pct, err)
		}
	}
}
