package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// A session's question uses the whole row: cut only when it is wider than
// the row after the two-column mark.
func TestSessionRowQuestionNotCutWhereThereIsRoom(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{NoColor: true})
	s := newSessionsScreen(sh)
	s.setSize(60, 20)
	now := time.Now()
	for _, c := range []struct {
		n     int
		whole bool
	}{{58, true}, {59, false}} {
		q := strings.Repeat("q", c.n)
		for _, selected := range []bool{false, true} {
			row := ansi.Strip(s.row(SessionSummary{ID: "x", Question: q, Started: now}, selected, now)[0])
			if got := strings.Contains(row, q); got != c.whole {
				t.Errorf("question of %d columns in a 60-column row (selected %v): whole = %v, want %v: %q", c.n, selected, got, c.whole, row)
			}
			if w := ansi.StringWidth(row); w > 60 {
				t.Errorf("row is %d columns wide: %q", w, row)
			}
		}
	}
}
