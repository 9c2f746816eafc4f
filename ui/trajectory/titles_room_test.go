package trajectory

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// A document's title is not cut where the line has room for it: the score,
// then the source label, give way first; a title too long for any line is
// cut and keeps its meta.
func TestDocTitleNotCutWhereThereIsRoom(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	fits := "The Carlsberg Laboratory and the Invention of the pH Scale in Copenhagen 1909" // 77 columns
	tooLong := strings.Repeat("A very long title about acids and bases ", 4)
	for _, c := range []struct {
		title     string
		whole     bool
		wantInRow string
	}{
		{fits, true, ""},
		{tooLong, false, "LOCAL wiki · 2.50"},
		{"Short title", true, "LOCAL wiki · 2.50"},
	} {
		d := sources.Document{ID: "a", Title: c.title, Text: "text", Source: "local:wiki", Score: 2.5}
		yes := true
		tr := New()
		for _, ev := range []engine.Event{
			engine.Event{Payload: engine.SessionStart{Question: "Q?"}},
			engine.Event{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "q1"}},
			engine.Event{Step: 1, Time: at, Payload: engine.Retrieval{Source: "local:wiki", Query: "q1", Docs: []sources.Document{d}}},
			engine.Event{Step: 1, Payload: engine.Selection{Status: &yes, Analysis: "ok"}},
			engine.Event{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{d.ID}, DocNums: []int{1}}},
		} {
			tr.Apply(ev)
		}
		screen := ansi.Strip(plainRenderer().Render(tr, View{Width: 100, Upto: -1}).Content())
		var row string
		for _, l := range strings.Split(screen, "\n") {
			if strings.HasPrefix(l, "  ▸ 1 ") {
				row = l
			}
		}
		if ansi.StringWidth(row) > 100 {
			t.Errorf("row wider than the view: %q", row)
		}
		if got := strings.Contains(row, strings.TrimSpace(c.title)); got != c.whole {
			t.Errorf("title %q whole in the row = %v, want %v:\n%s", c.title, got, c.whole, row)
		}
		if c.wantInRow != "" && !strings.Contains(row, c.wantInRow) {
			t.Errorf("row %q lacks %q", row, c.wantInRow)
		}
	}
}
