package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Follow-up script: the rewrite (plain text), a weak first answer (so the
// reflection searches every source with the question verbatim, which is
// the rewritten one), then an answer citing the first turn's documents.
const (
	followUp  = "and where did he work?"
	rewritten = "Where did Carsten Olsen, the Danish plant ecologist who assisted Sørensen, work?"
)

func followUpSteps(cite string) []string {
	return []string{
		"Standalone question: " + rewritten,
		"Thought: The earlier documents may say.\nFinal Answer: Not sure\nSelf-Evaluation: PARTIALLY CORRECT\nExplanation: the workplace is not stated\nImprovement Suggestions: search for his workplace",
		"Thought: The documents say it.\nFinal Answer: At the Carlsberg Laboratory in Copenhagen, assisting Sørensen " + cite + ".\nSelf-Evaluation: CORRECT\nExplanation: stated in " + cite,
	}
}

// queue is a script the test extends between runs: step calls take the
// next of steps, judge calls the next of judges, in order.
type queue struct {
	mu            sync.Mutex
	steps, judges []string
	// broken answers every call with HTTP 400.
	broken bool
}

func (q *queue) breakDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.broken = true
}

func (q *queue) add(steps, judges []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.steps = append(q.steps, steps...)
	q.judges = append(q.judges, judges...)
}

func (q *queue) Respond(c fakellm.Call) fakellm.Reply {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.broken {
		return fakellm.Reply{Status: 400, Error: "the model is broken"}
	}
	list := &q.steps
	if c.Kind() == fakellm.KindJudge {
		list = &q.judges
	}
	if len(*list) == 0 {
		return fakellm.Reply{Text: fakellm.DefaultStepReply, Problem: "thread script exhausted; prompt: " + c.Prompt}
	}
	r := (*list)[0]
	*list = (*list)[1:]
	return fakellm.Reply{Text: r}
}

// TestAskContinueThread: `ask --continue` rewrites the follow-up visibly
// (its own event and block), runs the loop on the rewritten question (the
// step prompt, and the reflection's searches of the corpus and the web),
// cites a document of the first turn under its first-turn number, and the
// stored thread shows both turns in `sessions show`, `sessions list`, the
// exports, and re-runs as a thread offline.
func TestAskContinueThread(t *testing.T) {
	w, script, out := caseStudyTurn1(t)
	first := parseEvents(t, out)
	id := first[0].Session
	final1 := payloadsOf[engine.Final](first)[0]
	// The corpus's Sørensen passage, as the first turn numbered it.
	num, docID := 0, ""
	for i, d := range final1.Sources {
		if strings.Contains(d.Text, "concept of pH") && strings.HasPrefix(d.Source, "local:") {
			num, docID = final1.SourceNums[i], d.ID
		}
	}
	if num == 0 {
		t.Fatalf("the first turn did not observe the Sørensen passage: %+v", final1.Sources)
	}
	cite := "[" + itoa(num) + "]"
	script.add(followUpSteps(cite), nil)
	webBefore := len(w.search.Queries())
	gensBefore := len(w.llm.Generations())

	out2, errOut, code := w.run(w.askArgs("--json", "--continue", "last", followUp)...)
	if code != 0 {
		t.Fatalf("follow-up: exit %d\n%s", code, errOut)
	}
	second := parseEvents(t, out2)
	if len(second) == 0 || second[0].Type() != "rewrite" || second[0].Session != id {
		t.Fatalf("follow-up events %v (session %s)", types(second), id)
	}
	rw := second[0].Payload.(engine.Rewrite)
	if rw.Original != followUp || rw.Rewritten != rewritten {
		t.Fatalf("rewrite %+v", rw)
	}
	for i, ev := range second {
		if ev.Turn != 2 || ev.Seq != first[len(first)-1].Seq+1+i {
			t.Fatalf("follow-up event %d (%s): turn %d seq %d", i, ev.Type(), ev.Turn, ev.Seq)
		}
	}
	// The rewrite call is plain text; the step prompt asks the rewritten
	// question and holds the first turn's documents with their numbers.
	gens := w.llm.Generations()[gensBefore:]
	if gens[0].Schema != nil || !strings.Contains(gens[0].Prompt, "Follow-up question: "+followUp) || !strings.Contains(gens[0].Prompt, "Assistant: 1974") {
		t.Fatalf("rewrite request: schema %s prompt %q", gens[0].Schema, gens[0].Prompt)
	}
	if p := gens[1].Prompt; !strings.Contains(p, "Question: "+rewritten) || !strings.Contains(p, cite+" title: ") {
		t.Fatalf("follow-up step prompt lacks the rewritten question or %s:\n%s", cite, p)
	}
	// The reflection searched the corpus and the web with the rewritten question.
	var searched []string
	for _, r := range payloadsOf[engine.Retrieval](second) {
		searched = append(searched, r.Source+" "+r.Query)
	}
	if !contains(searched, "local:wiki "+rewritten) || !contains(searched, "web:searxng "+rewritten) {
		t.Fatalf("follow-up searches %q", searched)
	}
	if q := w.search.Queries()[webBefore:]; len(q) != 1 || q[0] != rewritten {
		t.Fatalf("the web engine received %q, want the rewritten question", q)
	}
	// The answer cites the first turn's document under its number.
	final2 := payloadsOf[engine.Final](second)[0]
	found := false
	for _, ls := range final2.SourceList() {
		if ls.Num == num {
			found = ls.Doc.ID == docID && ls.Cited
		}
	}
	if !found || len(final2.InvalidCitations) > 0 || final2.Citations[0] != num {
		t.Fatalf("follow-up final cites %v (invalid %v); want %s = %s", final2.Citations, final2.InvalidCitations, cite, docID)
	}
	if c := final2.Counts; c.RewriteCalls != 1 || c.StepCalls != 2 || c.Reflections != 1 || c.LLMCalls != 3 {
		t.Fatalf("follow-up counts %+v", c)
	}

	// The stored thread.
	shown, _, code := w.run("sessions", "show", id, "--json")
	if code != 0 || shown != out+out2 {
		t.Errorf("sessions show --json is not both turns as ask printed them (exit %d)", code)
	}
	text, _, _ := w.run("sessions", "show", id)
	for _, want := range []string{"Question: " + caseQuestion, "════ Turn 2 ════", "Follow-up: " + followUp, "Rewritten question: " + rewritten, "assisting Sørensen " + cite} {
		if !strings.Contains(text, want) {
			t.Errorf("sessions show lacks %q", want)
		}
	}
	list, _, _ := w.run("sessions", "list", "--json")
	var s map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(list, "\n", 2)[0]), &s); err != nil {
		t.Fatal(err)
	}
	if s["turns"] != 2.0 || s["question"] != caseQuestion || s["last_question"] != followUp || s["status"] != "answered" {
		t.Errorf("listed thread %v", s)
	}
	if plain, _, _ := w.run("sessions", "list"); !strings.Contains(plain, "(2 turns)") {
		t.Errorf("sessions list does not count the turns:\n%s", plain)
	}
	dir := t.TempDir()
	for _, f := range []string{"md", "json", "jsonl", "pairs"} {
		path := filepath.Join(dir, "thread."+f)
		if _, errOut, code := w.run("sessions", "export", id, "--format", f, "-o", path); code != 0 {
			t.Fatalf("export %s: %s", f, errOut)
		}
		b, _ := os.ReadFile(path)
		doc := string(b)
		switch f {
		case "md":
			for _, want := range []string{"## Turn 1: ", "## Turn 2: " + followUp, "*Rewritten as:* " + rewritten, "- " + cite + " **"} {
				if !strings.Contains(doc, want) {
					t.Errorf("Markdown export lacks %q", want)
				}
			}
		case "json", "jsonl":
			if !strings.Contains(doc, `"type":"rewrite"`) && !strings.Contains(doc, `"type": "rewrite"`) {
				t.Errorf("%s export lacks the rewrite event", f)
			}
			if !strings.Contains(doc, `"turns": 2`) && !strings.Contains(doc, `"turns":2`) {
				t.Errorf("%s export lacks the turn count", f)
			}
		case "pairs":
			if n := strings.Count(doc, "\n"); n != 2 {
				t.Errorf("pairs: %d lines, want the 2 judge decisions of turn 1", n)
			}
		}
	}

	// A re-run of the thread, offline: both turns again, the web from the cache.
	cs := caseStudyScript()
	script.add(cs.Steps, cs.Judges)
	script.add(followUpSteps(cite), nil)
	webBefore = len(w.search.Queries())
	rerun, errOut, code := w.run("sessions", "rerun", id, "--offline", "--json")
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, errOut)
	}
	again := parseEvents(t, rerun)
	if rws := ofType(again, "rewrite"); len(rws) != 1 || rws[0].Turn != 2 || rws[0].Payload.(engine.Rewrite).Original != followUp {
		t.Fatalf("re-run rewrites %+v", rws)
	}
	if fs := ofType(again, "final"); len(fs) != 2 || fs[1].Turn != 2 || fs[1].Session != again[0].Session || fs[1].Session == id {
		t.Fatalf("re-run finals %+v", fs)
	}
	if q := w.search.Queries()[webBefore:]; len(q) != 0 {
		t.Errorf("an offline re-run sent web queries %q", q)
	}
}

// A follow-up whose model fails: the rewrite falls back to the question as
// asked (a notice), the run fails (exit 1), and the session keeps the
// thread's latest answer.
func TestAskContinueFails(t *testing.T) {
	cs := caseStudyScript()
	script := &queue{}
	script.add(cs.Steps, cs.Judges)
	w := newWorld(t, script)
	if _, errOut, code := w.run(w.askArgs(caseQuestion)...); code != 0 {
		t.Fatalf("first question: %s", errOut)
	}
	script.breakDown()
	out, errOut, code := w.run(w.askArgs("--json", "--continue", "last", followUp)...)
	if code != 1 {
		t.Fatalf("follow-up with a broken model: exit %d\n%s", code, errOut)
	}
	evs := parseEvents(t, out)
	if rw := payloadsOf[engine.Rewrite](evs); len(rw) != 1 || rw[0].Rewritten != followUp {
		t.Fatalf("rewrite events %+v", rw)
	}
	notices := payloadsOf[engine.Notice](evs)
	if len(notices) < 2 || notices[0].Fatal || !strings.Contains(notices[0].Message, "as asked") || !notices[len(notices)-1].Fatal {
		t.Fatalf("notices %+v", notices)
	}
	list, _, _ := w.run("sessions", "list", "--json")
	var s map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(list, "\n", 2)[0]), &s); err != nil {
		t.Fatal(err)
	}
	if s["status"] != "failed" || s["answer"] != "1974" || s["turns"] != 2.0 {
		t.Errorf("session after a failed follow-up: %v", s)
	}
}

// A follow-up of an unknown session, or before any session, says so.
func TestAskContinueErrors(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	for _, ref := range []string{"last", "0123456789abcdef"} {
		_, errOut, code := w.run(w.askArgs("--continue", ref, followUp)...)
		if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "prefrag:") {
			t.Errorf("--continue %s: exit %d, stderr %q", ref, code, errOut)
		}
	}
	if gens := w.llm.Generations(); len(gens) != 0 {
		t.Errorf("%d LLM calls for a follow-up with no thread", len(gens))
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// caseStudyTurn1 asks the case study's question with --json in a new world
// whose script can be extended with later turns, and returns the world,
// the script and the question's event lines (turn 1 of a thread).
func caseStudyTurn1(t *testing.T) (*world, *queue, string) {
	t.Helper()
	cs := caseStudyScript()
	script := &queue{}
	script.add(cs.Steps, cs.Judges)
	w := newWorld(t, script)
	out, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("first question: exit %d\n%s", code, errOut)
	}
	return w, script, out
}
