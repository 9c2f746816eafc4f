package enginebench

import (
	"context"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// TestRefinementReuse measures prompt-prefix reuse over the same questions
// with observation refinement (prefrag) and without (prefrag-no-ors) in a
// context small enough that 3-hop questions pass the budget.
func TestRefinementReuse(t *testing.T) {
	res := map[string]Result{}
	for _, strategy := range []string{engine.StrategyPrefRAG, engine.StrategyPrefRAGNoORS} {
		s := engine.DefaultRunConfig()
		s.Model, s.Strategy = "oracle", strategy
		s.ServerCtx = refineBenchCtx
		r, err := Measure(context.Background(), Config{Questions: Synthetic(20, 3), Settings: s, Hops: 3})
		if err != nil {
			t.Fatal(err)
		}
		res[strategy] = r
		t.Logf("%s, server context %d (budget %d): %d runs, %d refinements, %d LLM calls, prefix reuse mean %.3f min %.3f, cached share %.3f over %d transitions",
			strategy, s.ServerCtx, s.PromptBudget(), r.Runs, r.Refinements, r.LLMCalls, r.PrefixReuse, r.PrefixReuseMin, r.CachedShare, r.Transitions)
	}
	with, without := res[engine.StrategyPrefRAG], res[engine.StrategyPrefRAGNoORS]
	if with.Refinements == 0 || with.Refinements > with.Runs {
		t.Errorf("%d refinements over %d questions; want some, at most one per question", with.Refinements, with.Runs)
	}
	if without.Refinements != 0 || without.PrefixReuse != 1 {
		t.Errorf("without refinement: %d refinements, reuse %v", without.Refinements, without.PrefixReuse)
	}
	if with.PrefixReuse >= 1 || with.PrefixReuse < 0.5 {
		t.Errorf("with refinement: reuse %v; want below 1 (one break per refinement) and most of it kept", with.PrefixReuse)
	}
}

const refineBenchCtx = 2048
