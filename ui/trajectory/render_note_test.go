package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
)

// Gate, rewrite and refinement show as one dim field each, their text on
// one line and within the width.
func TestRenderNotes(t *testing.T) {
	h := func(seq, step int, p engine.Payload) engine.Event {
		return engine.Event{Session: "s", Seq: seq, Step: step, Payload: p}
	}
	tr := FromEvents([]engine.Event{
		h(1, 0, engine.SessionStart{Question: "q"}),
		h(2, 0, engine.Rewrite{Original: "and\nhis?", Rewritten: "Who \x1b[2Jwas?"}),
		h(3, 0, engine.Gate{Retrieve: true, Queries: []string{"a", "b"}, Analysis: "needs\nfacts"}),
		h(4, 1, engine.Thought{Text: "t"}),
		h(5, 2, engine.Refinement{BeforeChars: 9000, AfterChars: 3000, Steps: []int{1}}),
		{Seq: 6, Session: "s", Payload: engine.Unknown{Type: "from_the_future"}},
		h(7, 0, engine.ThreadContext{DocsCarried: []int{1}, DocsLeftOut: []int{2, 3}, TurnsLeftOut: []int{1}, Tokens: 90, Budget: 500}),
	})
	out := ansi.Strip(plainRenderer().Render(tr, View{Width: 80, Upto: -1, ShowFinal: true}).Content())
	for _, want := range []string{
		"Follow-up    and his?",
		"Rewritten    Who was?",
		"Gate         retrieval needed · “a”, “b” — needs facts",
		"Context      carried 1 earlier document [1], left out 2 [2] [3]",
		"Refined      observations cut from 9000 to 3000 characters to fit the context",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("render has an escape sequence")
	}
	checkWidth(t, plainRenderer().Render(tr, View{Width: 30, Upto: -1}).Content(), 30)
}

// A refinement that condensed documents carried from the thread says how
// many, in the text output's words.
func TestRenderRefinementThreadDocs(t *testing.T) {
	tr := FromEvents([]engine.Event{
		{Session: "s", Seq: 1, Payload: engine.SessionStart{Question: "q"}},
		{Session: "s", Seq: 2, Step: 1, Payload: engine.Thought{Text: "t"}},
		{Session: "s", Seq: 3, Step: 2, Payload: engine.Refinement{BeforeChars: 9000, AfterChars: 3000, Steps: []int{1}, ThreadDocs: 4}},
		{Session: "s", Seq: 4, Step: 3, Payload: engine.Refinement{BeforeChars: 5000, AfterChars: 2000, Steps: []int{2}, ThreadDocs: 1}},
	})
	out := ansi.Strip(plainRenderer().Render(tr, View{Width: 160, Upto: -1, ShowFinal: true}).Content())
	for _, want := range []string{
		"Refined      observations (with 4 documents carried from the thread) cut from 9000 to 3000 characters to fit the context",
		"Refined      observations (with 1 document carried from the thread) cut from 5000 to 2000 characters to fit the context",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
	checkWidth(t, plainRenderer().Render(tr, View{Width: 30, Upto: -1}).Content(), 30)
}
