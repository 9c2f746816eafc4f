package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/llm"
)

// TestNothingNewSkipsTheJudge: a search that brings only documents seen
// before is recorded as bringing nothing new (a selection event marked
// nothing_new, status false, naming the documents) without a judge call,
// and the next source is searched as after a judge's false.
func TestNothingNewSkipsTheJudge(t *testing.T) {
	h := newHarness(t)
	h.local.answers["first"] = []Document{doc("local:wiki", "a1", "Alpha", "Alpha was founded in 1887.")}
	h.web.answers["again"] = []Document{doc("web:duckduckgo", "w1", "Web", "The web knows more.")}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: first"},
		{text: "Thought: t\nAction: Search_Engine\nAction Input: first again"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(true, "fine"), judgeJSON(true, "must not be asked")}
	res, err := h.run(t, "Q?", func(s *Settings) { s.Web = WebAuto })
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.JudgeCalls != 1 || len(h.llm.prompts(llm.PurposeJudge)) != 1 {
		t.Errorf("judge calls = %d, want 1 (the repeat is not judged)", res.Counts.JudgeCalls)
	}
	sels := of[Selection](h.rec)
	if len(sels) != 2 {
		t.Fatalf("selections = %+v", sels)
	}
	second := sels[1].Payload.(Selection)
	b, _ := json.Marshal(sels[1])
	if second.Status == nil || *second.Status || !strings.Contains(second.Analysis, "nothing new") ||
		!strings.Contains(second.Analysis, "[1]") || !strings.Contains(string(b), `"nothing_new":true`) {
		t.Errorf("second selection %s, want status false, nothing new, naming [1]", b)
	}
	if len(h.web.queries) != 1 || h.web.queries[0] != "first again" {
		t.Errorf("web queries %q, want the repeated search's query", h.web.queries)
	}
}

// TestJudgeSeesSeenDocumentsOnce: when a search brings new documents and
// documents seen before, the judge sees each passage once: the seen one in
// what was already obtained (named, not shown, under the new information),
// the new one as new.
func TestJudgeSeesSeenDocumentsOnce(t *testing.T) {
	h := newHarness(t)
	seenText, newText := "Alpha was founded in 1887 by the guild.", "Beta stands on the northern shore."
	h.local.answers["first"] = []Document{doc("local:wiki", "a1", "Alpha", seenText)}
	h.local.answers["second"] = []Document{doc("local:wiki", "a1", "Alpha", seenText), doc("local:wiki", "b1", "Beta", newText)}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: first"},
		{text: "Thought: t\nAction: Search_Engine\nAction Input: second"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(true, "fine"), judgeJSON(true, "adds Beta")}
	if _, err := h.run(t, "Q?", func(s *Settings) { s.Web = WebAuto }); err != nil {
		t.Fatal(err)
	}
	ps := h.llm.prompts(llm.PurposeJudge)
	if len(ps) != 2 {
		t.Fatalf("%d judge prompts, want 2", len(ps))
	}
	p := ps[1]
	if n := strings.Count(p, seenText); n != 1 {
		t.Errorf("the seen passage is in the judge's prompt %d times, want once (already obtained):\n%s", n, p)
	}
	_, fresh, ok := strings.Cut(p, "\nNew information:\n")
	if !ok {
		t.Fatalf("no new information section:\n%s", p)
	}
	if strings.Contains(fresh, seenText) || !strings.Contains(fresh, newText) {
		t.Errorf("the new information shows the seen passage, or not the new one:\n%s", fresh)
	}
	if !strings.Contains(fresh, "[1] Alpha") {
		t.Errorf("the judge is not told [1] Alpha came back:\n%s", fresh)
	}
	sel := of[Selection](h.rec)[1].Payload.(Selection)
	if strings.Contains(sel.JudgeNew, seenText) {
		t.Errorf("the selection event records the seen passage as new: %q", sel.JudgeNew)
	}
}
