package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Issue 21 item 1, once issue 22 landed: a follow-up carries the earlier
// turns as question, answer and the sentences of their sources that
// support the answer, read from the stored evidence event (the follow-up
// runs in a new process).

// TestFollowUpCarriesSupportingQuotes: turn 1 answers with two claims
// supported by two sentences of passage [1]; turn 2 (ask --continue last)
// has both sentences, numbered [1] and in the claims' order, under turn 1's
// answer in its step prompt, and its thread_context event counts them.
func TestFollowUpCarriesSupportingQuotes(t *testing.T) {
	cs := evidenceScript()
	script := &queue{}
	script.add(cs.Steps, cs.Judges)
	w := newWorld(t, script)
	w.write("velloran.md", velloran)
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	const question = "When was the Velloran Institute founded, what does its library hold, and what did its director win?"
	out, errOut, code := w.run(w.askArgs("--json", "-k", "1", question)...)
	if code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", code, errOut)
	}
	if ev := payloadsOf[engine.Evidence](parseEvents(t, out)); len(ev) != 1 || len(ev[0].QuotesOf(1)) != 2 {
		t.Fatalf("turn 1's evidence %+v: want two quotes of [1]", ev)
	}
	const followQ = "Who founded the Velloran Institute?"
	script.add([]string{
		"Standalone question: " + followQ,
		"Thought: The earlier answer says it.\nFinal Answer: Ada Marsh [1].\nSelf-Evaluation: CORRECT\nExplanation: stated in [1]",
	}, nil)
	before := len(w.llm.Generations())
	out, errOut, code = w.run(w.askArgs("--json", "-k", "1", "--continue", "last", "and who founded it?")...)
	if code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", code, errOut)
	}
	var step string
	for _, g := range w.llm.Generations()[before:] {
		if g.Schema == nil && strings.Contains(g.Prompt, "Question: "+followQ) {
			step = g.Prompt
			break
		}
	}
	if step == "" {
		t.Fatal("no step prompt for turn 2")
	}
	answer := strings.Index(step, "Earlier answer: The Velloran Institute was founded in 1887")
	founded := strings.Index(step, `[1] "`+quoteFounded+`"`)
	library := strings.Index(step, `[1] "`+quoteLibrary+`"`)
	if answer < 0 || founded < answer || library < founded {
		t.Errorf("turn 2's step prompt lacks turn 1's supporting quotes under its answer, in order (answer %d, quotes %d %d):\n%s", answer, founded, library, step)
	}
	tcs := payloadsOf[engine.ThreadContext](parseEvents(t, out))
	if len(tcs) != 1 || tcs[0].QuotesCarried != 2 || tcs[0].QuotesLeftOut != 0 {
		t.Fatalf("thread_context %+v: want 2 quotes carried", tcs)
	}
	// The text output's thread-context line says so too.
	plain, errOut, code := w.run("sessions", "show", parseEvents(t, out)[0].Session)
	if code != 0 {
		t.Fatalf("sessions show: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(plain, "2 supporting quotes carried") {
		t.Errorf("sessions show lacks the quotes carried:\n%s", plain)
	}
}

// TestTenTurnThreadQuotesWithinBudget: ten turns at --num-ctx 4096, each
// answer with a supporting quote; every follow-up carries the earlier
// turns' quotes within the turns' share (what does not fit is counted
// left out), and no prompt passes the context. It logs the per-turn
// largest prompt and thread block.
func TestTenTurnThreadQuotesWithinBudget(t *testing.T) {
	const turns, numCtx = 10, 4096
	w := newWorld(t, threadModel(), fakellm.TruncateLikeOllama())
	threadCorpus(t, w, turns)
	var sizes []string
	for turn := 1; turn <= turns; turn++ {
		a := w.noWebArgs("--model", "fake-model", "--corpus", "topics", "--num-ctx", fmt.Sprint(numCtx), "--json")
		if turn > 1 {
			a = append(a, "--continue", "last")
		}
		before := len(w.llm.Generations())
		out, errOut, code := w.run(append(a, "What is known about "+topicName(turn)+"?")...)
		if code != 0 {
			t.Fatalf("turn %d: exit %d\n%s", turn, code, errOut)
		}
		evs := parseEvents(t, out)
		if ev := payloadsOf[engine.Evidence](evs); len(ev) != 1 || len(ev[0].Quotes()) == 0 {
			t.Fatalf("turn %d: evidence %+v, want a supporting quote", turn, ev)
		}
		largest := 0
		for _, g := range w.llm.Generations()[before:] {
			n := fakellm.ApproxTokens(g.Prompt)
			if g.KeptTokens > 0 || n >= numCtx {
				t.Errorf("turn %d: a %d-token prompt passed the context of %d", turn, n, numCtx)
			}
			largest = max(largest, n)
		}
		if turn == 1 {
			sizes = append(sizes, fmt.Sprintf("turn 1: largest prompt %d", largest))
			continue
		}
		tc := payloadsOf[engine.ThreadContext](evs)
		if len(tc) != 1 {
			t.Fatalf("turn %d: %d thread_context events", turn, len(tc))
		}
		// Every earlier answer's quote is carried or counted left out; a
		// young thread's quotes fit the share (later, with turns' answers
		// whole, the oldest quotes go first: how many are left depends on
		// how densely the text counts).
		if tc[0].QuotesCarried+tc[0].QuotesLeftOut != turn-1 || turn <= 5 && tc[0].QuotesCarried == 0 {
			t.Errorf("turn %d: %s", turn, tc[0].Summary())
		}
		if tc[0].Tokens > tc[0].Budget {
			t.Errorf("turn %d: thread block of %d tokens over its share of %d", turn, tc[0].Tokens, tc[0].Budget)
		}
		sizes = append(sizes, fmt.Sprintf("turn %d: largest prompt %d, thread block %d of %d, quotes %d carried %d left out",
			turn, largest, tc[0].Tokens, tc[0].Budget, tc[0].QuotesCarried, tc[0].QuotesLeftOut))
	}
	t.Log("\n" + strings.Join(sizes, "\n"))
}
