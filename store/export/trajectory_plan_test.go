package export

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/store"
)

// The appendix renders the gate, refinement and rewrite events in words
// (not as raw JSON), with their untrusted text escaped, and an unknown
// event type as its JSON.
func TestMarkdownGateRefinementRewrite(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	h := func(seq, step int, p engine.Payload) engine.Event {
		return engine.Event{Session: "s", Seq: seq, Time: at, Step: step, Payload: p}
	}
	evs := []engine.Event{
		h(1, 0, engine.SessionStart{Question: "and his wife?"}),
		h(2, 0, engine.Rewrite{Original: "and his\nwife?", Rewritten: "Who was *Sørensen's* wife?"}),
		h(3, 0, engine.Gate{Retrieve: true, Analysis: "Needs a fact.", Queries: []string{"Sørensen wife", "q\x1b[31m2"}, HeuristicAnswer: "Margrethe\nprobably"}),
		h(4, 1, engine.Thought{Text: "Search."}),
		h(5, 2, engine.Refinement{BeforeChars: 9000, AfterChars: 3000, Steps: []int{1}}),
		{Seq: 6, Time: at, Step: 2, Session: "s", Payload: engine.Unknown{Type: "from_the_future"}},
		h(7, 0, engine.ThreadContext{DocsCarried: []int{1}, DocsLeftOut: []int{2}, Tokens: 90, Budget: 500}),
		h(8, 0, engine.Final{Answer: "Margrethe."}),
	}
	rec := &store.Record{Session: store.Session{ID: "s", Question: "and his wife?", Started: at}, Events: evs}
	var b bytes.Buffer
	if err := Markdown(&b, rec); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"**Question rewritten.** The follow-up “and his wife?” was rewritten as the standalone question “Who was \\*Sørensen's\\* wife?”.\n\n",
		"**Retrieval gate: retrieval needed.** Needs a fact.\n\nQueries: “Sørensen wife”; “q2”.\n\n> *Heuristic answer:* Margrethe\n> probably\n\n",
		"### Step 2\n\n**Refinement.** To fit the context, the observations of step 1 were cut from 9000 to 3000 characters.\n\n",
		"**from\\_the\\_future event.**",
		"**Thread context.** The follow-up carried 1 earlier document \\[1\\], left out 1 \\[2\\]",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"**thread\\_context event.**", "**gate event.**", "**refinement event.**", "**rewrite event.**", "\x1b"} {
		if strings.Contains(md, bad) {
			t.Errorf("Markdown has %q", bad)
		}
	}
}
