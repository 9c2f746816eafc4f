package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// The gate, refinement and rewrite events render as short blocks with
// their untrusted text sanitised; an unknown type prints nothing.
func TestRenderGateRefinementRewrite(t *testing.T) {
	h := engine.Event{Session: "s", Seq: 3, Time: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), Step: 2}
	with := func(e engine.Event, p engine.Payload) engine.Event { e.Payload = p; return e }
	cases := []struct {
		name      string
		ev        engine.Event
		want, not []string
		lines     int
	}{
		{"gate retrieve", with(h, engine.Gate{Retrieve: true, Analysis: "needs facts\nabout X", Queries: []string{"who is X", "X \x1b[31mred"}}),
			[]string{"Gate: retrieval needed — needs facts", "\n      about X", `queries: "who is X", "X red"`}, []string{"\x1b"}, 3},
		{"gate no retrieval", with(h, engine.Gate{HeuristicAnswer: "Paris", Queries: nil}),
			[]string{"Gate: answered without retrieval", "heuristic answer: Paris"}, []string{"queries"}, 2},
		{"refinement", with(h, engine.Refinement{BeforeChars: 9000, AfterChars: 3000, Steps: []int{1, 2}}),
			[]string{"[2] Refinement: observations of steps 1, 2 cut from 9000 to 3000 characters"}, nil, 1},
		{"refinement with thread documents", with(h, engine.Refinement{BeforeChars: 9000, AfterChars: 3000, Steps: []int{1}, ThreadDocs: 4}),
			[]string{"[2] Refinement: observations of step 1 (with 4 documents carried from the thread) cut from 9000 to 3000 characters"}, nil, 1},
		{"rewrite", with(engine.Event{Session: "s", Seq: 30, Turn: 2}, engine.Rewrite{Original: "and his\nwife?", Rewritten: "Who was Sørensen's wife?"}),
			[]string{"════ Turn 2 ════", "Follow-up: and his wife?", "Rewritten question: Who was Sørensen's wife?"}, nil, 4},
		{"rewrite unchanged", with(engine.Event{Session: "s", Seq: 30, Turn: 3}, engine.Rewrite{Original: "Who is X?", Rewritten: "Who is X?"}),
			[]string{"Turn 3", "Rewritten question: (unchanged) Who is X?"}, nil, 4},
		{"thread context", with(engine.Event{Session: "s", Seq: 31, Turn: 2}, engine.ThreadContext{DocsCarried: []int{1, 3}, DocsLeftOut: []int{2}, TurnsShortened: []int{1}, Tokens: 300, Budget: 982, PromptBudget: 2457}),
			[]string{"Thread context: carried 2 earlier documents [1] [3], left out 1 [2] (they keep their numbers); turn 1 shortened; about 300 tokens of a 982-token share"}, nil, 1},
		{"unknown type", engine.Event{Step: 1, Payload: engine.Unknown{Type: "from_the_future"}}, nil, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			textRenderer{}.render(&b, c.ev)
			out := b.String()
			for _, s := range c.want {
				if !strings.Contains(out, s) {
					t.Errorf("%q lacks %q", out, s)
				}
			}
			for _, s := range c.not {
				if strings.Contains(out, s) {
					t.Errorf("%q has %q", out, s)
				}
			}
			if n := strings.Count(out, "\n"); n != c.lines {
				t.Errorf("%d lines, want %d: %q", n, c.lines, out)
			}
		})
	}
}
