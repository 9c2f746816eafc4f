package export

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/store"
)

// hostileMarkdown is model text with every way Markdown has to run script,
// load a remote resource or hide a destination.
const hostileMarkdown = "See [the source](https://example.org/olsen) and [click](javascript:alert(1)).\n" +
	"![pixel](http://tracker.example/p.gif?u=1) ![x](javascript:alert(2))\n" +
	"[ref][r] <javascript:alert(3)> <img src=\"http://tracker.example/i.gif\"> <a href=\"javascript:alert(4)\">a</a>\n" +
	"\\\\<img src=x onerror=alert(5)> [entity](javascript&#58;alert(6))\n\n[r]: javascript:alert(7)\n\nDied in 1974 [1]."

// A Markdown export keeps http(s) links only, turns images into links and
// leaves no raw HTML, wherever the model's text appears.
func TestMarkdownModelLinks(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	const id = "links"
	if err := s.CreateSession(ctx, store.Session{ID: id, Question: "When did Olsen die?"}); err != nil {
		t.Fatal(err)
	}
	tr := true
	evs := []engine.Event{
		{Step: 1, Payload: engine.Thought{Text: hostileMarkdown}},
		{Step: 1, Payload: engine.Selection{Status: &tr, Analysis: hostileMarkdown}},
		{Step: 2, Payload: engine.Answer{Text: hostileMarkdown, Label: "CORRECT", Explanation: hostileMarkdown, Suggestions: hostileMarkdown}},
		{Payload: engine.Final{Answer: hostileMarkdown}},
	}
	for i, ev := range evs {
		ev.Session, ev.Seq, ev.Time = id, i+1, fixture.Start
		if err := s.AppendEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Markdown(&b, rec); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	checkMarkdown(t, hostileMarkdown, md)
	for _, want := range []string{"[the source](https://example.org/olsen)", "[image: pixel](http://tracker.example/p.gif?u=1)", "Died in 1974 [1]."} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
