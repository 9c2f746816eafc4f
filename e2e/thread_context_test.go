package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Issue 21, "Context that holds": a long thread stays inside the context
// the server gives, and what was left out is said.

// topicName is the made-up subject of turn i (1-based).
func topicName(i int) string { return fmt.Sprintf("zet%dqu", i) }

// threadCorpus writes five passages for each of n topics.
func threadCorpus(t *testing.T, w *world, n int) {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		name := topicName(i)
		for part := 1; part <= 5; part++ {
			text := fmt.Sprintf("The %s is a subject of record number %d. ", name, i*10+part) +
				strings.Repeat(fmt.Sprintf("Observers of the %s noted detail %d in the survey of that year, and the archive keeps the notes. ", name, part), 4)
			line, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("%s-%d", name, part), "title": fmt.Sprintf("%s facts part %d", strings.ToUpper(name[:1])+name[1:], part), "text": text})
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	dir := filepath.Join(w.home, "thread-docs")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "topics.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := w.run("index", "--corpus", "topics", dir); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
}

var (
	questionLine = regexp.MustCompile(`(?m)^Question: (.*)$`)
	lastObsNum   = regexp.MustCompile(`Observation: \[(\d+)\] title: `)
)

// threadModel answers a thread's calls: the rewrite repeats the follow-up
// (each is standalone already), the judge accepts, a step searches the
// question's topic and then answers citing the first document observed; a
// question that says "again" answers at once, citing the document of its
// topic the prompt holds.
func threadModel() fakellm.Responder {
	return fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		if c.Kind() == fakellm.KindJudge {
			return fakellm.Reply{Text: `{"analysis": "relevant", "status": true}`}
		}
		if i := strings.Index(c.Prompt, "Follow-up question: "); i >= 0 {
			q, _, _ := strings.Cut(c.Prompt[i+len("Follow-up question: "):], "\n")
			return fakellm.Reply{Text: "Standalone question: " + q}
		}
		m := questionLine.FindAllStringSubmatch(c.Prompt, -1)
		if len(m) == 0 {
			return fakellm.Reply{Text: "Thought: ?\nFinal Answer: unknown\nSelf-Evaluation: INCORRECT", Problem: "no question in: " + c.Prompt}
		}
		q := m[len(m)-1][1]
		topic := regexp.MustCompile(`zet\d+qu`).FindString(q)
		if strings.Contains(q, "again") {
			title := strings.ToUpper(topic[:1]) + topic[1:] + " facts part "
			re := regexp.MustCompile(`\[(\d+)\] title: ` + regexp.QuoteMeta(title))
			if n := re.FindStringSubmatch(c.Prompt); n != nil {
				return fakellm.Reply{Text: "Thought: The earlier document says it.\nFinal Answer: As found before [" + n[1] + "].\nSelf-Evaluation: CORRECT\nExplanation: stated in [" + n[1] + "]"}
			}
			return fakellm.Reply{Text: "Thought: I do not have it.\nFinal Answer: not in the context\nSelf-Evaluation: INCORRECT"}
		}
		if obs := lastObsNum.FindAllStringSubmatch(c.Prompt, -1); len(obs) > 0 {
			n := obs[len(obs)-1][1]
			return fakellm.Reply{Text: "Thought: The documents say it.\nFinal Answer: A subject of record [" + n + "].\nSelf-Evaluation: CORRECT\nExplanation: stated in [" + n + "]"}
		}
		return fakellm.Reply{Text: "Thought: I must search.\nAction: Search_Engine\nAction Input: " + topic}
	})
}

// TestThirtyTurnThreadStaysInContext: 30 turns on a 4,096-token context
// (Ollama, which cuts what passes num_ctx): no prompt passes the context,
// no over-budget warning, turn 30's largest prompt stays within 1.5× turn
// 3's, each follow-up says what it carried and left out, and turn 30, back
// on turn 1's topic without searching, has turn 1's cited document in its
// prompt under its original number.
func TestThirtyTurnThreadStaysInContext(t *testing.T) {
	const turns, numCtx = 30, 4096
	w := newWorld(t, threadModel(), fakellm.TruncateLikeOllama())
	threadCorpus(t, w, turns)
	args := func(extra ...string) []string {
		return append(w.noWebArgs("--model", "fake-model", "--corpus", "topics", "--num-ctx", fmt.Sprint(numCtx), "--json"), extra...)
	}
	largest := make([]int, turns+1) // per turn, the largest prompt (tokens as the server counts them)
	var firstCited int
	var firstTitle string
	for turn := 1; turn <= turns; turn++ {
		q := "What is known about " + topicName(turn) + "?"
		if turn == turns {
			q = "What was the record of " + topicName(1) + " again?"
		}
		before := len(w.llm.Generations())
		a := args(q)
		if turn > 1 {
			a = args("--continue", "last", q)
		}
		out, errOut, code := w.run(a...)
		if code != 0 {
			t.Fatalf("turn %d: exit %d\n%s", turn, code, errOut)
		}
		evs := parseEvents(t, out)
		for _, ev := range ofType(evs, "error") {
			if p, ok := ev.Payload.(engine.Notice); ok && (strings.Contains(p.Message, "budget") || strings.Contains(p.Message, "context")) {
				t.Errorf("turn %d: %s", turn, p.Message)
			}
		}
		for _, g := range w.llm.Generations()[before:] {
			n := fakellm.ApproxTokens(g.Prompt)
			if g.KeptTokens > 0 || n >= numCtx {
				t.Errorf("turn %d: a %d-token prompt passed the context of %d (kept %d)", turn, n, numCtx, g.KeptTokens)
			}
			largest[turn] = max(largest[turn], n)
		}
		final := ofType(evs, "final")
		if len(final) != 1 {
			t.Fatalf("turn %d: %d final events", turn, len(final))
		}
		f := final[0].Payload.(engine.Final)
		if turn == 1 {
			if len(f.Citations) == 0 {
				t.Fatalf("turn 1 cited nothing: %q", f.Answer)
			}
			firstCited = f.Citations[0]
			for i, n := range f.SourceNums {
				if n == firstCited {
					firstTitle = f.Sources[i].Title
				}
			}
			continue
		}
		tcs := ofType(evs, "thread_context")
		if len(tcs) != 1 {
			t.Fatalf("turn %d: %d thread_context events", turn, len(tcs))
		}
		tc := tcs[0].Payload.(engine.ThreadContext)
		if got, want := len(tc.DocsCarried)+len(tc.DocsLeftOut), 5*(turn-1); got != want {
			t.Errorf("turn %d: %d documents carried or left out, want %d", turn, got, want)
		}
		if turn == turns {
			if len(ofType(evs, "retrieval")) != 0 {
				t.Errorf("turn %d searched", turn)
			}
			if !contains(intsToStrings(f.Citations), fmt.Sprint(firstCited)) {
				t.Errorf("turn %d cited %v, want turn 1's [%d] (%s)", turn, f.Citations, firstCited, firstTitle)
			}
			var stepPrompt string
			for _, g := range w.llm.Generations()[before:] {
				if g.Schema == nil && strings.Contains(g.Prompt, "Question: What was the record") {
					stepPrompt = g.Prompt
				}
			}
			if !strings.Contains(stepPrompt, fmt.Sprintf("[%d] title: %s", firstCited, firstTitle)) {
				t.Errorf("turn %d's step prompt lacks turn 1's cited document [%d] %s", turn, firstCited, firstTitle)
			}
			if len(tc.DocsLeftOut) == 0 {
				t.Errorf("turn %d left nothing out of %d documents", turn, len(tc.DocsCarried))
			}
			t.Logf("turn %d: %s", turn, tc.Summary())
		}
	}
	t.Logf("largest prompt per turn (tokens): %v", largest[1:])
	if largest[turns] > largest[3]*3/2 {
		t.Errorf("turn %d's largest prompt is %d tokens, over 1.5× turn 3's %d", turns, largest[turns], largest[3])
	}
}

func intsToStrings(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprint(n)
	}
	return out
}
