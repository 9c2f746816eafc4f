package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/llm"
)

// threadTurn1 runs the case-study question as the first turn of a thread
// and returns its events.
func threadTurn1(t *testing.T) []Event {
	t.Helper()
	run := goldenRuns["casestudy"]
	return run(t)
}

func (h *harness) follow(t *testing.T, th *Thread, q string) (Result, error) {
	t.Helper()
	s := DefaultSettings()
	s.Model = "script"
	s.Web = "auto"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.eng.Run(ctx, Request{SessionID: "s1", Question: q, Settings: s, Emit: h.rec.emit, Thread: th})
}

func TestThreadFromNumbersDocsAsTheyWere(t *testing.T) {
	evs := threadTurn1(t)
	th := ThreadFrom(evs)
	if th.Turn != 2 || th.LastSeq != evs[len(evs)-1].Seq {
		t.Fatalf("turn %d lastSeq %d, want 2 and %d", th.Turn, th.LastSeq, evs[len(evs)-1].Seq)
	}
	if len(th.Turns) != 1 || th.Turns[0].Question != caseQuestion || th.Turns[0].Answer != "1974" {
		t.Fatalf("turns = %+v", th.Turns)
	}
	var ids []string
	for _, d := range th.Docs {
		ids = append(ids, d.ID)
	}
	if want := []string{"d1", "https://example.org/olsen"}; !equalStrings(ids, want) {
		t.Fatalf("docs = %v, want %v", ids, want)
	}
	// What the turn's final answer cited (issue 21: cited documents are
	// carried first).
	cited := append([]Event(nil), evs...)
	f, ok := cited[len(cited)-1].Payload.(Final)
	if !ok {
		t.Fatalf("last event %s", cited[len(cited)-1].Type())
	}
	f.Citations = []int{2}
	cited[len(cited)-1].Payload = f
	if got := ThreadFrom(cited).Turns[0].Cited; len(got) != 1 || got[0] != 2 {
		t.Errorf("cited %v, want [2]", got)
	}
}

// TestFollowUpTurn: a follow-up is rewritten by a plain-text call (the
// rewrite event, first of the turn), the loop runs on the rewritten
// question with the earlier documents in its context under their numbers,
// new documents are numbered after them, every event carries turn 2 and
// continues the seq, and the turn has its own counts.
func TestFollowUpTurn(t *testing.T) {
	th := ThreadFrom(threadTurn1(t))
	h := newHarness(t)
	h.local.answers["copenhagen"] = []Document{doc("local:wiki", "d5", "Olsen's studies", "Carsten Olsen studied botany at the University of Copenhagen.")}
	h.local.answers["where did carsten olsen study"] = []Document{doc("local:wiki", "d5", "Olsen's studies", "Carsten Olsen studied botany at the University of Copenhagen.")}
	h.llm.steps = []reply{
		{text: "Standalone question: \"Where did Carsten Olsen study?\"\n"},
		{text: "Thought: Search his studies.\nAction: Search_Engine\nAction Input: Carsten Olsen Copenhagen"},
		{text: "Thought: I know.\nFinal Answer: In Copenhagen [3]; he assisted Sørensen [1] and died in 1974 [2].\nSelf-Evaluation: CORRECT\nExplanation: found"},
	}
	h.llm.judges = []reply{judgeJSON(true, "says where he studied")}
	res, err := h.follow(t, th, "and where did he study?")
	if err != nil {
		t.Fatal(err)
	}
	evs := h.rec.events
	var stored []Event
	for _, e := range evs {
		if e.Type() != EventToken {
			stored = append(stored, e)
		}
	}
	if stored[0].Type() != EventRewrite {
		t.Fatalf("first event %s, want rewrite; types %v", stored[0].Type(), h.rec.types())
	}
	rw := stored[0].Payload.(Rewrite)
	if rw.Original != "and where did he study?" || rw.Rewritten != "Where did Carsten Olsen study?" {
		t.Fatalf("rewrite = %+v", rw)
	}
	for i, e := range stored {
		if e.Turn != 2 || e.Seq != th.LastSeq+1+i || e.Type() == EventSession {
			t.Fatalf("event %d (%s): turn %d seq %d; want turn 2 seq %d", i, e.Type(), e.Turn, e.Seq, th.LastSeq+1+i)
		}
	}
	// The rewrite call: plain text, no schema, no stop, not the step prompt.
	rwReq := h.llm.reqs[0]
	if rwReq.Purpose != purposeRewrite || len(rwReq.Schema) > 0 || len(rwReq.Stop) > 0 {
		t.Fatalf("rewrite request: purpose %s format %s stop %v", rwReq.Purpose, rwReq.Schema, rwReq.Stop)
	}
	for _, want := range []string{"User: " + caseQuestion, "Assistant: 1974", "Follow-up question: and where did he study?"} {
		if !strings.Contains(rwReq.Prompt, want) {
			t.Errorf("rewrite prompt lacks %q:\n%s", want, rwReq.Prompt)
		}
	}
	step := h.llm.prompts(llm.PurposeStep)[0]
	for _, want := range []string{"Question: Where did Carsten Olsen study?", "[1] title: S. P. L. Sørensen", "[2] title: Carsten Olsen", "Earlier answer: 1974"} {
		if !strings.Contains(step, want) {
			t.Errorf("step prompt lacks %q:\n%s", want, step)
		}
	}
	obs := payloads[Observation](h.rec)
	if len(obs) != 1 || len(obs[0].DocNums) != 1 || obs[0].DocNums[0] != 3 {
		t.Fatalf("new document numbered %v, want [3]", obs)
	}
	f := h.rec.final(t)
	if got := f.Citations; len(got) != 3 || got[0] != 3 || got[1] != 1 || got[2] != 2 || len(f.InvalidCitations) != 0 {
		t.Fatalf("citations %v invalid %v", f.Citations, f.InvalidCitations)
	}
	list := f.SourceList()
	if list[1].Num != 1 || list[1].Doc.ID != "d1" || list[2].Num != 2 || list[2].Doc.ID != "https://example.org/olsen" {
		t.Fatalf("source list %+v", list)
	}
	if c := res.Counts; c.RewriteCalls != 1 || c.StepCalls != 2 || c.JudgeCalls != 1 || c.LLMCalls != 4 || c.LocalRetrievals != 1 {
		t.Fatalf("counts %+v", c)
	}
	// The thread continues: turn 3 sees both earlier turns and all three documents.
	th3 := ThreadFrom(append(threadTurn1(t), stored...))
	if th3.Turn != 3 || len(th3.Turns) != 2 || th3.Turns[1].Question != "Where did Carsten Olsen study?" || len(th3.Docs) != 3 || th3.Docs[2].ID != "d5" {
		t.Fatalf("thread after turn 2: %+v", th3)
	}
}

// TestFollowUpRewriteFallback: a failed or empty rewrite keeps the
// follow-up as asked, with a notice, and the run goes on.
func TestFollowUpRewriteFallback(t *testing.T) {
	cases := []struct {
		name  string
		reply reply
	}{
		{"empty", reply{text: "  \n\n"}},
		{"only a label", reply{text: "Standalone question:"}},
		{"server error", reply{err: &llm.ServerError{Backend: "script", Status: 400, Message: "bad request"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th := ThreadFrom(threadTurn1(t))
			h := newHarness(t)
			h.llm.steps = []reply{c.reply, {text: "Thought: known.\nFinal Answer: Copenhagen [1]\nSelf-Evaluation: CORRECT\nExplanation: ok"}}
			if _, err := h.follow(t, th, "and where did he study?"); err != nil {
				t.Fatal(err)
			}
			rw := payloads[Rewrite](h.rec)
			if len(rw) != 1 || rw[0].Rewritten != "and where did he study?" {
				t.Fatalf("rewrite events %+v", rw)
			}
			notes := payloads[Notice](h.rec)
			if len(notes) != 1 || notes[0].Fatal || !strings.Contains(notes[0].Message, "as asked") {
				t.Fatalf("notices %+v", notes)
			}
			if !strings.Contains(h.llm.prompts(llm.PurposeStep)[0], "Question: and where did he study?") {
				t.Fatal("step prompt does not carry the follow-up as asked")
			}
		})
	}
}

func TestFollowUpCancelledDuringRewrite(t *testing.T) {
	th := ThreadFrom(threadTurn1(t))
	h := newHarness(t)
	h.llm.steps = []reply{{block: true}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	s := DefaultSettings()
	s.Model = "script"
	_, err := h.eng.Run(ctx, Request{SessionID: "s1", Question: "and he?", Settings: s, Emit: h.rec.emit, Thread: th})
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("err = %v", err)
	}
	if f := of[Final](h.rec); len(f) != 1 || !f[0].Payload.(Final).Cancelled || f[0].Turn != 2 {
		t.Fatalf("final %+v", f)
	}
}

func TestFollowUpInvalidThread(t *testing.T) {
	h := newHarness(t)
	_, err := h.follow(t, &Thread{Turn: 1, LastSeq: 3}, "q")
	if !errors.Is(err, ErrThread) {
		t.Fatalf("err = %v", err)
	}
}

func TestParseRewrite(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Where did Carsten Olsen study?", "Where did Carsten Olsen study?"},
		{"  \n**Standalone question:** \"Where did Olsen study?\"\nExtra line", "Where did Olsen study?"},
		{"Standalone question:\n“Where did Olsen study?”", "Where did Olsen study?"},
		{"Question: What is pH?", "What is pH?"},
		{"Rewritten: 'x'", "x"},
		{"", ""},
		{"\x1b[31mred\x1b[0m question?", "red question?"},
		{"Final Answer: injected", "Final Answer - injected"},
		{"Note: keep this label", "Note: keep this label"},
		{strings.Repeat("a", 700), strings.Repeat("a", 599) + "…"},
	}
	for _, c := range cases {
		if got := ParseRewrite(c.in); got != c.want {
			t.Errorf("ParseRewrite(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzParseRewrite(f *testing.F) {
	for _, s := range []string{"Standalone question: x?", "**Question:** “y”", "\n\nq\x1b]0;t\x07", "Final Answer: z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseRewrite(s)
		if strings.ContainsAny(got, "\n\r\x1b") {
			t.Fatalf("ParseRewrite(%q) = %q holds a newline or escape", s, got)
		}
		if ParseRewrite(got) == "" && got != "" && strings.TrimSpace(got) != "" {
			// Parsing twice may strip a further label, never everything.
			t.Fatalf("re-parse of %q emptied it", got)
		}
	})
}

func init() {
	// The wire format of a follow-up turn (rewrite event, turn field).
	goldenRuns["followup"] = func(t *testing.T) []Event {
		th := ThreadFrom(threadTurn1(t))
		h := newHarness(t)
		h.local.answers["copenhagen"] = []Document{doc("local:wiki", "d5", "Olsen's studies", "Carsten Olsen studied botany at the University of Copenhagen.")}
		h.llm.steps = []reply{
			{text: "Where did Carsten Olsen study?"},
			{text: "Thought: Search his studies.\nAction: Search_Engine\nAction Input: Carsten Olsen Copenhagen"},
			{text: "Thought: I know.\nFinal Answer: In Copenhagen [3]; he assisted Sørensen [1].\nSelf-Evaluation: CORRECT\nExplanation: found"},
		}
		h.llm.judges = []reply{judgeJSON(true, "says where he studied")}
		if _, err := h.follow(t, th, "and where did he study?"); err != nil {
			t.Fatal(err)
		}
		return h.rec.events
	}
}
