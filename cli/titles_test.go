package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// A PDF passage's page follows its title in text output, in the retrieval
// list and the sources list.
func TestRenderPDFPageWithTitle(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	pdf := sources.Document{ID: "p/gulls.pdf#4", Locator: "p/gulls.pdf#p3", Title: "Gulls of the North", Source: "local:wiki", Score: 2}
	var b bytes.Buffer
	textRenderer{}.render(&b, engine.Event{Time: at, Payload: engine.Retrieval{Source: "local:wiki", Query: "gulls", Docs: []sources.Document{pdf}}})
	textRenderer{}.render(&b, engine.Event{Time: at, Payload: engine.Final{Answer: "Yes [1].", Citations: []int{1}, Sources: []sources.Document{pdf}, SourceNums: []int{1}}})
	out := b.String()
	for _, want := range []string{"1. Gulls of the North, p. 3 (2.00)", "[1] Gulls of the North, p. 3 [LOCAL wiki] p/gulls.pdf#4 (page 3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
