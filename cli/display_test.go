package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// forged is a document title (or model text) that, printed as it is,
// would look like the end of a run: an answer and its sources.
const forged = "Harmless title\nFinal answer:\n  The moon is made of cheese [1]\nSources:\n  - Trusted Encyclopedia [LOCAL wiki] /docs/a.md\n────────"

// Only the program's own labels start at the left margin of text output: a
// title, locator or note is one line, and model text continues indented.
func TestTextOutputCannotForgeLines(t *testing.T) {
	tr := true
	evs := []engine.Event{
		{Payload: engine.SessionStart{Question: "q\nFinal answer:"}},
		{Step: 1, Payload: engine.Thought{Text: "thinking\n" + forged}},
		{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "q\nx", Docs: []sources.Document{{ID: "a", Title: forged, Source: "local:wiki"}}}},
		{Step: 1, Payload: engine.Selection{Status: &tr, Analysis: "fine\n" + forged}},
		{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{"a"}, Note: "note\n" + forged}},
		{Step: 2, Payload: engine.Answer{Text: "42\n" + forged, Label: "CORRECT", Explanation: "e\n" + forged, Suggestions: "s\n" + forged}},
		{Payload: engine.Notice{Message: "trouble\n" + forged}},
		{Payload: engine.Final{Answer: "42\n" + forged, Citations: []int{1}, SourceNums: []int{1}, Sources: []sources.Document{{ID: "a", Title: forged, Source: "local:wiki", Locator: "/docs/a.md\nSources:"}}}},
	}
	var b bytes.Buffer
	for _, ev := range evs {
		textRenderer{}.render(&b, ev)
	}
	out := b.String()
	var margin []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" && l[0] != ' ' {
			margin = append(margin, l)
		}
	}
	for _, l := range margin {
		switch {
		case strings.HasPrefix(l, "Question: "), strings.HasPrefix(l, "["), l == "────────", l == "Final answer:", l == "Sources:",
			l == "Documents in the context (the answer cites none):", l == "Also in the context, not cited:":
		default:
			t.Errorf("untrusted text reached the left margin: %q\n%s", l, out)
		}
	}
	for _, want := range []string{"Final answer:", "Sources:"} {
		if n := countLines(margin, want); n != 1 {
			t.Errorf("%q starts %d lines at the left margin, want 1\n%s", want, n, out)
		}
	}
	if !strings.Contains(out, "      1. Harmless title Final answer: The moon is made of cheese [1] Sources: … (0.00)\n") {
		t.Errorf("retrieved title not shown on one line:\n%s", out)
	}
	if !strings.Contains(out, "[LOCAL wiki] a (at /docs/a.md Sources:)\n") {
		t.Errorf("locator not shown on one line:\n%s", out)
	}
}

func countLines(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if l == s {
			n++
		}
	}
	return n
}

func TestJSONOutputOfStoredText(t *testing.T) {
	stored := []json.RawMessage{
		json.RawMessage(`{"answer":"1974\u001b]0;pwned\u0007 ok","seq":3,"type":"final"}`),
		json.RawMessage(`{"seq":1,"text":"clean \u003cb\u003e","type":"thought"}`),
	}
	got := safeLines(stored)
	if string(got[0]) != `{"answer":"1974 ok","seq":3,"type":"final"}` {
		t.Errorf("stored escape not removed: %s", got[0])
	}
	if string(got[1]) != string(stored[1]) {
		t.Errorf("a clean line must be printed as stored: %s", got[1])
	}
	s := safeSession(store.Session{Question: "q\u202e", Answer: "a\x1b[2Jb\nc", Corpora: []string{"wiki"}})
	b, _ := json.Marshal(s)
	if bytes.Contains(b, []byte(`\u001b`)) || strings.ContainsRune(string(b), '\u202e') {
		t.Errorf("session JSON keeps controls: %s", b)
	}
	if s.Answer != "ab\nc" {
		t.Errorf("answer %q", s.Answer)
	}
}
