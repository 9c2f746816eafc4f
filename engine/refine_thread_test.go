package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/llm"
)

// TestRefinementCondensesThreadDocs (issue 21 item 1): a follow-up's
// documents carried from its thread are refined like an earlier
// observation. The carried documents plus the turn's first observation
// pass the refine budget, so before the next step the carried documents
// are condensed into a note that takes their place (their numbers go to
// the refinement call), the newest observation stays byte for byte, and
// the refinement event counts the thread documents.
func TestRefinementCondensesThreadDocs(t *testing.T) {
	th := &Thread{Turn: 2, LastSeq: 10,
		Turns: []PriorTurn{{Question: "What are the alpha and beta rivers?", Answer: "Two rivers [1] [2].", Cited: []int{1, 2}}},
		Docs: []Document{
			doc("local:wiki", "t1", "Alpha river", filler("alphariver", 700)),
			doc("local:wiki", "t2", "Beta river", filler("betariver", 700)),
		},
	}
	h := newHarness(t)
	h.local.answers["gamma"] = []Document{doc("local:wiki", "g1", "Gamma", filler("gammafactoid", 3900))}
	const note = "The alpha river is long [1]; the beta river is short [2]."
	h.llm.steps = []reply{
		{text: "Standalone question: How do the alpha and beta rivers relate to gamma?"},
		{text: "Thought: search gamma.\nAction: Search_Engine\nAction Input: gamma"},
		{text: note},
		{text: "Thought: done.\nFinal Answer: through gamma [3], alpha [1] and beta [2]\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(true, "ok"), judgeJSON(true, "ok")}
	s := DefaultSettings()
	s.Model = "script"
	s.ServerCtx = 2600 // output limit 650, budget 2210-650 = 1560 tokens
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := h.eng.Run(ctx, Request{SessionID: "s1", Question: "and how do they relate to gamma?", Settings: s, Emit: h.rec.emit, Thread: th})
	if err != nil {
		t.Fatal(err)
	}
	tc := payloads[ThreadContext](h.rec)
	if len(tc) != 1 || len(tc[0].DocsCarried) != 2 {
		t.Fatalf("thread_context %+v, want both documents carried", tc)
	}
	carried := []string{observationText(t, 1, th.Docs[0]), observationText(t, 2, th.Docs[1])}
	obs3 := observationText(t, 3, h.local.answers["gamma"][0])
	ps := reasoning(h)
	if len(ps) != 2 {
		t.Fatalf("%d reasoning prompts, want 2", len(ps))
	}
	for _, c := range carried {
		if !strings.Contains(ps[0], strings.TrimSpace(c)) {
			t.Fatalf("the first step prompt does not carry %q", tail(c, 80))
		}
	}
	budget := s.PromptBudget()
	if llm.EstimateTokens(ps[0])+llm.EstimateTokens(obs3) <= budget {
		t.Fatalf("the script does not pass the budget %d (%d + %d): calibrate the documents", budget, llm.EstimateTokens(ps[0]), llm.EstimateTokens(obs3))
	}
	last := ps[1]
	if est := llm.EstimateTokens(last); est > budget {
		t.Errorf("the refined prompt is about %d tokens, over the budget %d", est, budget)
	}
	if !strings.HasSuffix(last, "\nObservation: "+obs3) {
		t.Errorf("the newest observation is not kept byte for byte; tail %q", tail(last, 300))
	}
	for _, c := range carried {
		if strings.Contains(last, strings.TrimSpace(c)) {
			t.Errorf("a carried document was not condensed: %q", tail(c, 80))
		}
	}
	if !strings.Contains(last, note) || strings.Index(last, note) > strings.Index(last, "Question: ") {
		t.Errorf("the note does not take the carried documents' place in the head:\n%s", tail(last, 3000))
	}
	refs := h.llm.prompts(llm.PurposeRefine)
	if len(refs) != 1 {
		t.Fatalf("%d refinement calls, want 1", len(refs))
	}
	for _, want := range []string{"[1] title: Alpha river", "[2] title: Beta river", "How do the alpha and beta rivers relate to gamma?", "Most recent search query: gamma"} {
		if !strings.Contains(refs[0], want) {
			t.Errorf("the refinement prompt lacks %q", want)
		}
	}
	if strings.Contains(refs[0], "gammafact") {
		t.Errorf("the refinement prompt holds the newest observation")
	}
	evs := payloads[Refinement](h.rec)
	if len(evs) != 1 {
		t.Fatalf("%d refinement events, want 1: %v", len(evs), h.rec.types())
	}
	if p := evs[0]; p.ThreadDocs != 2 || len(p.Steps) != 0 || p.AfterChars >= p.BeforeChars || p.BeforeChars < len(carried[0])+len(carried[1]) {
		t.Errorf("refinement payload %+v", p)
	}
	if res.Counts.Refinements != 1 {
		t.Errorf("refinements counted %d", res.Counts.Refinements)
	}
	f := h.rec.final(t)
	if len(f.InvalidCitations) != 0 || len(f.Citations) != 3 {
		t.Errorf("citations %v invalid %v: the numbers must survive the note", f.Citations, f.InvalidCitations)
	}
}
