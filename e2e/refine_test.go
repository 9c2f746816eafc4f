package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// refineWorld: a corpus whose two searches bring back far more than a
// small llama.cpp slot holds, and a model that searches twice and answers.
func refineWorld(t *testing.T) *world {
	t.Helper()
	const judge = `{"analysis": "relevant", "status": true}`
	rules := fakellm.Rules{List: []fakellm.Rule{
		{Kind: fakellm.KindJudge, Reply: fakellm.Reply{Text: judge}},
		{Contains: "condensing search results", Reply: fakellm.Reply{Text: "Aluminium melts at 660 degrees [1]."}},
		{Contains: "berylliumfact", Reply: fakellm.Reply{Text: "Thought: enough.\nFinal Answer: 660 [1]\nSelf-Evaluation: CORRECT"}},
		{Contains: "aluminiumfact", Reply: fakellm.Reply{Text: "Thought: now beryllium.\nAction: Search_Engine\nAction Input: beryllium"}},
		{Reply: fakellm.Reply{Text: "Thought: start with aluminium.\nAction: Search_Engine\nAction Input: aluminium"}},
	}}
	// One slot of 21760/2 = 10880 tokens: output limit 1024, budget
	// 10880*85/100 - 1024 = 8224 tokens.
	w := newWorld(t, rules, fakellm.ContextLength(21760), fakellm.Slots(2), fakellm.EnforceContext())
	for i := 0; i < 8; i++ {
		for _, word := range []string{"aluminium", "beryllium"} {
			w.write(fmt.Sprintf("%s%d.txt", word, i), fmt.Sprintf("%s note %d. ", word, i)+strings.Repeat(word+"fact ", 420)+"\n")
		}
	}
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	return w
}

func TestRefinementKeepsPromptsInTheServersBudget(t *testing.T) {
	for _, tt := range []struct {
		strategy string
		refine   bool
	}{{engine.StrategyPrefRAG, true}, {engine.StrategyPrefRAGNoORS, false}} {
		t.Run(tt.strategy, func(t *testing.T) {
			w := refineWorld(t)
			out, errOut, code := w.run(w.noWebArgs("--llm", "llamacpp", "--model", "fake-model", "--corpus", "wiki", "--k", "8", "--strategy", tt.strategy, "--json", "What melts first?")...)
			// Without refinement the third prompt does not fit the slot: the
			// run warns at the budget, then refuses to send the prompt.
			if tt.refine && code != 0 || !tt.refine && (code != 1 || !strings.Contains(errOut, "does not fit")) {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			evs := parseEvents(t, out)
			sess := evs[0].Payload.(engine.SessionStart)
			if sess.Config == nil || sess.Config.ServerCtx != 10880 || sess.Config.RefineBudget != engine.DefaultRefineBudget {
				t.Fatalf("session config %+v", sess.Config)
			}
			budget := sess.Config.PromptBudget()
			if budget != 8224 {
				t.Fatalf("budget %d, want 8224", budget)
			}
			final := payloadsOf[engine.Final](evs)
			if tt.refine && (len(final) != 1 || final[0].Answer != "660 [1]") {
				t.Fatalf("final %+v", final)
			}
			refs := payloadsOf[engine.Refinement](evs)
			var biggest, obsChars int
			for _, g := range w.llm.Generations() {
				n := fakellm.ApproxTokens(g.Prompt)
				biggest = max(biggest, n)
				if tt.refine && n > budget {
					t.Errorf("a prompt of %d tokens passed the budget of %d", n, budget)
				}
			}
			for _, e := range payloadsOf[engine.Retrieval](evs) {
				for _, d := range e.Docs {
					obsChars += len(d.Text)
				}
			}
			t.Logf("%s: %d chars retrieved (~%d tokens), largest prompt %d tokens, budget %d, %d refinements",
				tt.strategy, obsChars, obsChars/4, biggest, budget, len(refs))
			if obsChars/4 <= budget {
				t.Fatalf("the observations (%d chars) do not pass the budget", obsChars)
			}
			warned := false
			for _, e := range payloadsOf[engine.Notice](evs) {
				warned = warned || (!e.Fatal && strings.Contains(e.Message, "does not refine"))
			}
			if tt.refine {
				if len(refs) != 1 || final[0].Counts.Refinements != 1 || warned {
					t.Errorf("%d refinement events, %d counted, warned %v", len(refs), final[0].Counts.Refinements, warned)
				}
			} else if len(refs) != 0 || !warned || !strings.Contains(errOut, "so it was not sent") || biggest > sess.Config.ContextTokens() {
				t.Errorf("no-ors: %d refinements, warned %v, largest prompt %d", len(refs), warned, biggest)
			}
		})
	}
}
