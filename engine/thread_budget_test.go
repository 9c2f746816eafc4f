package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
)

// bigThread is a thread of turns turns, each with docsPerTurn documents
// on its own subject ("subjN"), the turn's first document cited.
func bigThread(turns, docsPerTurn int) *Thread {
	th := &Thread{Turn: turns + 1, LastSeq: 100}
	for t := 1; t <= turns; t++ {
		subj := fmt.Sprintf("subj%d", t)
		first := len(th.Docs) + 1
		for k := 1; k <= docsPerTurn; k++ {
			th.Docs = append(th.Docs, doc("local:wiki", fmt.Sprintf("%s-%d", subj, k), fmt.Sprintf("%s part %d", subj, k),
				strings.Repeat(fmt.Sprintf("The %s river was measured in part %d of the survey. ", subj, k), 8)))
		}
		th.Turns = append(th.Turns, PriorTurn{Question: "What about " + subj + "?", Answer: strings.Repeat("It was measured carefully. ", 20) + fmt.Sprintf("[%d]", first), Cited: []int{first}})
	}
	return th
}

func docCost(_ int, d Document) int {
	return llm.EstimateTokens(d.Title) + llm.EstimateTokens(d.Text) + 6
}

// planDocs carries the documents of the question's subject (the cited one
// first) within the budget, the last turn's cited one too, and leaves the
// rest out under their numbers.
func TestPlanDocsChoosesForTheQuestion(t *testing.T) {
	th := bigThread(30, 5)
	p := planDocs(th, "Back to subj1: what was measured?", 700, docCost)
	if p.tokens > 700 {
		t.Errorf("%d tokens over the budget of 700", p.tokens)
	}
	if len(p.carried)+len(p.leftOut) != 150 {
		t.Fatalf("%d carried + %d left out", len(p.carried), len(p.leftOut))
	}
	has := map[int]bool{}
	for _, n := range p.carried {
		has[n] = true
	}
	// Turn 1's cited document [1] and the last turn's cited [146].
	if !has[1] || !has[146] {
		t.Errorf("carried %v, want [1] and [146] among them", p.carried)
	}
	for _, n := range p.carried {
		if n != 146 && n > 5 {
			t.Errorf("carried [%d], off the question's subject, before subj1's own documents: %v", n, p.carried)
		}
	}
	// Unlimited: everything is carried.
	if all := planDocs(th, "anything", 1<<30, docCost); len(all.carried) != 150 || len(all.leftOut) != 0 {
		t.Errorf("unlimited: %d carried, %d left out", len(all.carried), len(all.leftOut))
	}
}

// planTurns shortens the oldest turns first: answers cut short, then
// questions only, then left out; the newest keeps a short answer.
func TestPlanTurnsShortensOldestFirst(t *testing.T) {
	th := bigThread(30, 1)
	whole := planTurns(th.Turns, 1<<30, true, llm.EstimateTokens)
	if len(whole.turns) != 30 || len(whole.shortened)+len(whole.leftOut) != 0 {
		t.Fatalf("unlimited: %d turns, %v shortened, %v left out", len(whole.turns), whole.shortened, whole.leftOut)
	}
	for _, budget := range []int{2000, 600, 250, 60} {
		p := planTurns(th.Turns, budget, true, llm.EstimateTokens)
		if len(p.turns)+len(p.leftOut) != 30 {
			t.Fatalf("budget %d: %d carried, %d left out", budget, len(p.turns), len(p.leftOut))
		}
		if p.tokens > budget && len(p.turns) > 1 {
			t.Errorf("budget %d: %d tokens with %d turns carried", budget, p.tokens, len(p.turns))
		}
		for i, n := range p.leftOut {
			if n != i+1 {
				t.Errorf("budget %d: left out %v, not the oldest", budget, p.leftOut)
				break
			}
		}
		last := p.turns[len(p.turns)-1]
		if last.Question != th.Turns[29].Question || last.Answer == "" {
			t.Errorf("budget %d: the newest turn lost its answer: %+v", budget, last)
		}
	}
}

// A judge prompt that would pass the context is never sent whole: the
// oldest documents already obtained are left out first, with a notice,
// and the prompt the judge gets fits its budget.
func TestJudgePromptBoundedInThread(t *testing.T) {
	th := bigThread(40, 5)
	h := newHarness(t)
	h.local.answers["subj1"] = []Document{doc("local:wiki", "new1", "New subj1", "Fresh subj1 facts.")}
	h.llm.steps = []reply{
		{text: "Standalone question: What about subj1?"},
		{text: "Thought: search.\nAction: Search_Engine\nAction Input: subj1"},
		{text: "Thought: done.\nFinal Answer: measured [1]\nSelf-Evaluation: CORRECT\nExplanation: ok"},
	}
	h.llm.judges = []reply{judgeJSON(true, "useful")}
	s := DefaultSettings()
	s.Model, s.Web, s.NumCtx = "script", WebNever, 1280
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Every earlier document in the judge's "already obtained" text: the
	// whole thread carried (as before issue 21) would be far over 1024.
	r := newRun(h.eng, Request{SessionID: "s1", Question: "What about subj1?", Settings: s, Emit: h.rec.emit, Thread: th})
	block, _ := r.prompts.Observation(prompts.ObservationData{Docs: r.number(th.Docs)})
	if llm.EstimateTokens(block) < 4*1024 {
		t.Fatalf("the thread is too small for the test: %d tokens", llm.EstimateTokens(block))
	}
	if _, err := h.eng.Run(ctx, Request{SessionID: "s1", Question: "and subj1?", Settings: s, Emit: h.rec.emit, Thread: th}); err != nil {
		t.Fatal(err)
	}
	budget := s.ContextTokens()*DefaultRefineBudget/100 - s.OutputLimit(true)
	for _, p := range h.llm.prompts(llm.PurposeJudge) {
		if n := llm.EstimateTokens(p); n > budget {
			t.Errorf("a judge prompt of %d tokens passed its budget of %d", n, budget)
		}
	}
	for _, p := range append(h.llm.prompts(llm.PurposeStep), h.llm.prompts(purposeRewrite)...) {
		if n := llm.EstimateTokens(p); n > s.ContextTokens() {
			t.Errorf("a prompt of %d tokens passed the context", n)
		}
	}
	if tc := payloads[ThreadContext](h.rec); len(tc) != 1 {
		t.Errorf("%d thread_context events", len(tc))
	}
}

// A prompt that cannot fit even after all this is an error that says what
// to change, and is never sent.
func TestPromptTooLargeNeverSent(t *testing.T) {
	h := newHarness(t)
	h.llm.steps = []reply{{text: "Final Answer: x"}}
	_, err := h.run(t, strings.Repeat("a very long question ", 2000), func(s *Settings) { s.NumCtx = 1024 })
	var pt *PromptTooLargeError
	if !errors.As(err, &pt) || !errors.Is(err, ErrPromptTooLarge) || !strings.Contains(err.Error(), "raise --num-ctx") {
		t.Fatalf("err = %v (%T)", err, err)
	}
	if n := len(h.llm.prompts(llm.PurposeStep)); n != 0 {
		t.Errorf("%d step prompts sent", n)
	}
	if ev := payloads[Notice](h.rec); len(ev) == 0 || !ev[len(ev)-1].Fatal {
		t.Errorf("no fatal error event")
	}
}

// A server that cut the prompt (llm.PromptCutError) ends the run with a
// fatal error event: no answer built on the cut prompt is presented.
func TestPromptCutIsFatal(t *testing.T) {
	h := newHarness(t)
	h.llm.steps = []reply{{text: "Thought: x\nFinal Answer: built on half a prompt\nSelf-Evaluation: CORRECT", err: &llm.PromptCutError{Backend: "ollama", Sent: 9000, Kept: 4096, Context: 4096, Fix: "raise --num-ctx"}}}
	res, err := h.run(t, "What?", nil)
	if !errors.Is(err, llm.ErrPromptCut) || res.Answer != "" {
		t.Fatalf("answer %q, err %v", res.Answer, err)
	}
	if len(payloads[Final](h.rec)) != 0 {
		t.Errorf("a final event was emitted")
	}
}

// Building a follow-up's context for a 50-turn thread of 500 documents,
// each turn with three supporting quotes (issue 21: ≤ 5 ms).
func BenchmarkThreadContext(b *testing.B) {
	th := bigThread(50, 10)
	for i := range th.Turns {
		n := th.Turns[i].Cited[0]
		for k := 0; k < 3; k++ {
			th.Turns[i].Quotes = append(th.Turns[i].Quotes, evidence.Quote{N: n, Quote: fmt.Sprintf("The subj%d river was measured in part %d of the survey.", i+1, k+1)})
		}
	}
	s := DefaultSettings()
	s.Model = "bench"
	e, _ := New(Config{LLM: &scriptLLM{}})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := newRun(e, Request{SessionID: "s", Question: "Back to subj1: what was measured?", Settings: s, Thread: th})
		if err := r.primeThread(th); err != nil {
			b.Fatal(err)
		}
	}
}

// judgeObtained leaves out the oldest whole documents so the judge prompt
// fits, and says so once.
func TestJudgeObtainedKeepsTheNewest(t *testing.T) {
	h := newHarness(t)
	s := DefaultSettings()
	s.NumCtx = 1024
	r := newRun(h.eng, Request{SessionID: "s", Question: "q", Settings: s, Emit: h.rec.emit})
	th := bigThread(20, 5)
	block, _ := r.prompts.Observation(prompts.ObservationData{Docs: r.number(th.Docs)})
	got := r.judgeObtained(block, 100)
	budget := r.callBudget(true)
	if n := r.count(got) + 100; n > budget {
		t.Errorf("%d tokens over the judge's budget of %d", n, budget)
	}
	if !strings.HasPrefix(got, judgeLeftOut) || !strings.HasSuffix(block, strings.TrimPrefix(got, judgeLeftOut)) || !strings.Contains(got, "[100] title: ") {
		t.Errorf("not the newest whole documents:\n%s", got)
	}
	_ = r.judgeObtained(block, 100)
	if n := len(payloads[Notice](h.rec)); n != 1 {
		t.Errorf("%d notices, want 1", n)
	}
	if small := "[1] title: a\ncontent: b\n"; r.judgeObtained(small, 100) != small {
		t.Errorf("a small text was changed")
	}
}

// countingLLM is a scripted model whose server has a tokenizer twice as
// dense as the estimate.
type countingLLM struct{ *scriptLLM }

func (countingLLM) CountTokens(_ context.Context, text string) (int, error) {
	return 2 * llm.EstimateTokens(text), nil
}

// With the server's tokenizer, the estimate is calibrated before the first
// call: a prompt that fits by runes/4 but not in the model's tokens is not
// sent.
func TestTokenizerCalibratesBeforeTheFirstCall(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tokenizer bool
		sent      bool
	}{{"no tokenizer: sent", false, true}, {"tokenizer: not sent", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			var m LLM = h.llm
			if tc.tokenizer {
				m = countingLLM{h.llm}
			}
			h.eng, _ = New(Config{LLM: m, Sources: []Source{h.local}})
			h.llm.steps = []reply{{text: "Thought: x\nFinal Answer: y\nSelf-Evaluation: CORRECT"}}
			// About 1,550 tokens by runes/4: fits 2048 with a 256-token
			// reply, not at twice that in the model's tokens.
			_, err := h.run(t, strings.Repeat("word ", 1000), func(s *Settings) { s.NumCtx = 2048 })
			if sent := len(h.llm.prompts(llm.PurposeStep)) > 0; sent != tc.sent {
				t.Fatalf("sent %v, want %v (err %v)", sent, tc.sent, err)
			}
			if !tc.sent && !errors.Is(err, ErrPromptTooLarge) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// countTerms counts as words() splits: the same words, lower-cased.
func TestCountTermsAgreesWithWords(t *testing.T) {
	for _, s := range []string{"", "Zet1qu river", "ÅRHUS and Århus, Straße: STRASSE!", "a-b_c 12,5 x\ty\nÉcole", "日本語 text 日本語"} {
		ws := words(s, nil)
		q := map[string]int{}
		for _, w := range ws {
			if _, ok := q[w]; !ok {
				q[w] = len(q)
			}
		}
		row := make([]int, len(q))
		var buf []byte
		if n := countTerms(s, q, row, &buf); n != len(ws) {
			t.Errorf("%q: %d words counted, words() gives %d", s, n, len(ws))
		}
		want := make([]int, len(q))
		for _, w := range ws {
			want[q[w]]++
		}
		if fmt.Sprint(row) != fmt.Sprint(want) {
			t.Errorf("%q: counts %v, want %v", s, row, want)
		}
	}
}

// digits is the width strconv.Itoa writes.
func TestDigits(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 99, 100, 999, 1000, 123456789, -1, -9, -10, -12345} {
		if got, want := digits(n), len(strconv.Itoa(n)); got != want {
			t.Errorf("digits(%d) = %d, want %d", n, got, want)
		}
	}
}
