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

// The Markdown export shows a PDF passage's page after its title.
func TestMarkdownPDFPageWithTitle(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	const id = "pdf"
	if err := s.CreateSession(ctx, store.Session{ID: id, Question: "Gulls?"}); err != nil {
		t.Fatal(err)
	}
	doc := engine.Document{ID: "p/gulls.pdf#4", Locator: "p/gulls.pdf#p3", Title: "Gulls of the North", Text: "gulls", Source: "local:wiki"}
	evs := []engine.Event{
		{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "q", Docs: []engine.Document{doc}}},
		{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{doc.ID}, DocNums: []int{1}}},
		{Payload: engine.Final{Answer: "Yes [1].", Citations: []int{1}}},
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
	if n := strings.Count(md, "Gulls of the North, p. 3"); n < 2 {
		t.Errorf("the page follows the title %d times, want at least 2 (sources and trajectory):\n%s", n, md)
	}
}
