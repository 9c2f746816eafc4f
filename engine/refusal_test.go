package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/llm"
)

// refusalScript: two searches whose observations fit the budget of a small
// server slot by the estimate, then a third step prompt that the server
// does not read whole (trouble), then, when prefrag fits it, a refinement
// note and the answer.
func refusalScript(t *testing.T, trouble error, strategy string) (*harness, Result, error) {
	t.Helper()
	h := newHarness(t)
	h.local.answers["alpha"] = []Document{doc("local:wiki", "a1", "Alpha", filler("alphafact", 1600))}
	h.local.answers["beta"] = []Document{doc("local:wiki", "b1", "Beta", filler("betafact", 1600))}
	h.llm.steps = []reply{
		{text: "Thought: first alpha.\nAction: Search_Engine\nAction Input: alpha"},
		{text: "Thought: then beta.\nAction: Search_Engine\nAction Input: beta"},
		{text: "Thought: done.\nFinal Answer: built on a prompt the server did not read [2]\nSelf-Evaluation: CORRECT", err: trouble},
		{text: "alpha is the first fact [1]."},
		{text: "Thought: done.\nFinal Answer: gamma [2]\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(true, "ok"), judgeJSON(true, "ok")}
	res, err := h.run(t, "How are alpha and beta related?", func(s *Settings) {
		s.Strategy = strategy
		s.ServerCtx = 2600 // budget 1560 tokens
	})
	return h, res, err
}

// Issue 27: a step prompt the server refuses as over its context (or cuts)
// tells its real size; prefrag condenses the earlier observations, sends
// the smaller prompt once more and says so. The reply to a cut prompt is
// never used.
func TestRefusedPromptIsFittedAndSentAgain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trouble error
		said    string
	}{
		{"refused", &llm.ContextExceededError{Backend: "ollama", Server: "Ollama", PromptTokens: 3100, NCtx: 2600}, "the server refused the step prompt as longer than its context of 2600 tokens (it counted 3100 tokens)"},
		{"cut", &llm.PromptCutError{Backend: "ollama", Sent: 3100, Kept: 1302, Context: 2600}, "the server cut the step prompt to 1302 tokens to fit its context of 2600 tokens, so its reply was not used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, res, err := refusalScript(t, tc.trouble, StrategyPrefRAG)
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "gamma [2]" {
				t.Errorf("answer %q", res.Answer)
			}
			var said []string
			for _, n := range payloads[Notice](h.rec) {
				if strings.Contains(n.Message, tc.said) && strings.Contains(n.Message, "prefrag shortened it") && !n.Fatal {
					said = append(said, n.Message)
				}
			}
			if len(said) != 1 {
				t.Errorf("notices %+v, want one saying %q", payloads[Notice](h.rec), tc.said)
			}
			if r := payloads[Refinement](h.rec); len(r) != 1 {
				t.Errorf("%d refinements, want 1", len(r))
			}
			ps := reasoning(h)
			if len(ps) != 4 || llm.EstimateTokens(ps[3]) >= llm.EstimateTokens(ps[2]) {
				t.Errorf("%d reasoning prompts; the one sent again is not smaller", len(ps))
			}
			for _, a := range payloads[Answer](h.rec) {
				if strings.Contains(a.Text, "did not read") {
					t.Errorf("the reply to the prompt the server did not read was used: %q", a.Text)
				}
			}
		})
	}
}

// A prompt that cannot be made smaller (a strategy that does not refine)
// is not sent again: the run ends with the server's refusal in one
// sentence that names its setting, and the run's calls and tokens are
// counted in the fatal error event.
func TestRefusedPromptThatCannotBeFitted(t *testing.T) {
	refusal := &llm.ContextExceededError{Backend: "ollama", Server: "Ollama", PromptTokens: 3100, NCtx: 2600, Hint: "raise --num-ctx (this request ran with 2600 tokens) or lower -k and --max-steps"}
	h, res, err := refusalScript(t, refusal, StrategyPrefRAGNoORS)
	if !errors.Is(err, llm.ErrContextExceeded) || res.Answer != "" {
		t.Fatalf("answer %q, err %v", res.Answer, err)
	}
	if ps := reasoning(h); len(ps) != 3 {
		t.Errorf("%d reasoning prompts, want 3 (the refused one not sent again)", len(ps))
	}
	ns := payloads[Notice](h.rec)
	last := ns[len(ns)-1]
	if !last.Fatal || !strings.Contains(last.Message, "does not fit Ollama's context of 2600 tokens") || !strings.Contains(last.Message, "--num-ctx") || strings.Contains(last.Message, "\n") {
		t.Errorf("fatal %q", last.Message)
	}
	if c := last.Counts; c == nil || c.LLMCalls != 5 || c.StepCalls != 3 || c.JudgeCalls != 2 {
		t.Errorf("the fatal error event counts %+v, want the 5 calls made", c)
	}
	if len(payloads[Final](h.rec)) != 0 {
		t.Errorf("a final event was emitted")
	}
}

// The context a refusal names is the one the run counts with from then on.
func TestRefusalContextIsTheRunsContext(t *testing.T) {
	h := newHarness(t)
	r := newRun(h.eng, Request{SessionID: "s1", Question: "q", Settings: DefaultSettings()})
	r.learnRefusal(llm.Request{Purpose: llm.PurposeStep, Prompt: "x"}, &llm.PromptCutError{Kept: 2050, Context: 4096})
	if got := r.settings.ContextTokens(); got != 4096 {
		t.Errorf("context %d after a cut at 4096", got)
	}
}

// tokenizerLLM is a scripted model with a tokenizer that counts ratio times
// the estimate (llama-server's /tokenize).
type tokenizerLLM struct {
	*scriptLLM
	ratio  float64
	counts *[]string
}

func (c tokenizerLLM) CountTokens(_ context.Context, text string) (int, error) {
	*c.counts = append(*c.counts, text)
	return int(float64(llm.EstimateTokens(text)) * c.ratio), nil
}

// Near the context, the whole prompt is counted by the server's tokenizer,
// not only its head: a step prompt whose figure-heavy observation fits by
// the estimate but not in the model's tokens is not sent; a small prompt
// is not counted whole.
func TestTokenizerCountsTheWholePromptNearTheContext(t *testing.T) {
	figures := strings.Repeat("2021-07-04 | 3.076 | 244.5 | 61.7 | 22.0\n", 30)
	for _, tc := range []struct {
		name string
		doc  string
		sent int // step prompts sent
	}{
		{"figures near the context: counted, not sent", figures, 1},
		{"small: sent", "The gauge read 3.076 m.", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.local.answers["gauge"] = []Document{doc("local:wiki", "g1", "Gauge", tc.doc)}
			var counted []string
			m := tokenizerLLM{scriptLLM: h.llm, ratio: 1.6, counts: &counted}
			h.llm.steps = []reply{
				{text: "Thought: search.\nAction: Search_Engine\nAction Input: gauge"},
				{text: "Thought: x\nFinal Answer: y [1]\nSelf-Evaluation: CORRECT"},
			}
			h.llm.judges = []reply{judgeJSON(true, "ok")}
			err := runWith(t, h, m, nil, "What did the gauge read?", 2048)
			if n := len(h.llm.prompts(llm.PurposeStep)); n != tc.sent {
				t.Fatalf("%d step prompts sent, want %d (err %v)", n, tc.sent, err)
			}
			whole := false
			for _, c := range counted {
				whole = whole || strings.Contains(c, "3.076") && strings.Contains(c, "Thought")
			}
			if tc.sent == 1 && (!whole || !errors.Is(err, ErrPromptTooLarge)) {
				t.Errorf("the whole prompt was not counted by the tokenizer (%d counts), err %v", len(counted), err)
			}
			if tc.sent == 2 && whole {
				t.Errorf("a small prompt was counted whole")
			}
		})
	}
}

// Issue 27: a single observation of many passages that the server refuses
// is fitted with fewer passages: the newest observation keeps its first
// documents, says which were left out (they keep their numbers), and the
// smaller prompt is sent once more.
func TestRefusedObservationKeepsFewerPassages(t *testing.T) {
	h := newHarness(t)
	var docs []Document
	for i := 1; i <= 5; i++ {
		docs = append(docs, doc("local:wiki", fmt.Sprint("d", i), fmt.Sprint("Doc ", i), filler(fmt.Sprint("fact", i), 1500)))
	}
	h.local.answers["facts"] = docs
	h.llm.steps = []reply{
		{text: "Thought: search.\nAction: Search_Engine\nAction Input: facts"},
		{text: "Thought: x\nFinal Answer: not used\nSelf-Evaluation: CORRECT", err: &llm.ContextExceededError{Backend: "ollama", Server: "Ollama", PromptTokens: 4200, NCtx: 4096}},
		{text: "Thought: done.\nFinal Answer: the facts [1]\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(true, "ok")}
	res, err := h.run(t, "What are the facts?", func(s *Settings) { s.NumCtx = 4096; s.K = 5 })
	if err != nil || res.Answer != "the facts [1]" {
		t.Fatalf("answer %q, err %v", res.Answer, err)
	}
	ps := reasoning(h)
	last := ps[len(ps)-1]
	if len(ps) != 3 || !strings.Contains(last, "[1] title: Doc 1") || strings.Contains(last, "[5] title: Doc 5") || !strings.Contains(last, "[5] left out to fit the context") {
		t.Errorf("the prompt sent again: %q", tail(last, 400))
	}
	said := 0
	for _, n := range payloads[Notice](h.rec) {
		if strings.Contains(n.Message, "the prompt shows the first") && strings.Contains(n.Message, "of the 5 documents found at step 1") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("notices %+v", payloads[Notice](h.rec))
	}
}
