package trajectory

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// The TUI shows a PDF passage's page after its title, in the retrieval
// block and in the final sources.
func TestRenderPDFPageWithTitle(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	pdf := sources.Document{ID: "p/gulls.pdf#4", Locator: "p/gulls.pdf#p3", Title: "Gulls of the North", Text: "gulls", Source: "local:wiki", Score: 2}
	tr := New()
	for _, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "Q?"}},
		{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "q1"}},
		{Step: 1, Time: at, Payload: engine.Retrieval{Source: "local:wiki", Query: "q1", Docs: []sources.Document{pdf}}},
		{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{pdf.ID}, DocNums: []int{1}}},
		{Time: at, Payload: engine.Final{Answer: "Yes [1].", Citations: []int{1}, Sources: []sources.Document{pdf}, SourceNums: []int{1}}},
	} {
		tr.Apply(ev)
	}
	out := plainRenderer().Render(tr, View{Width: 100, Upto: -1, ShowFinal: true, Expanded: map[string]bool{"b0/obs/0": true}})
	screen := ansi.Strip(out.Content())
	if n := strings.Count(screen, "Gulls of the North, p. 3"); n < 2 {
		t.Errorf("the page follows the title %d times, want at least 2 (block and sources):\n%s", n, screen)
	}
}
