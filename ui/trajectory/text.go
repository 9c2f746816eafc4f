package trajectory

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// roleForced is the role of the thought/answer of the forced final call.
const roleForced = "forced"

// wrap word-wraps plain text to width columns (long words are broken) and
// returns its lines. Empty text gives no lines.
func wrap(text string, width int) []string {
	text = strings.TrimRight(text, "\n ")
	if text == "" {
		return nil
	}
	width = max(width, 8)
	return strings.Split(ansi.Wrap(text, width, ""), "\n")
}

// truncate cuts s to width columns with an ellipsis.
func truncate(s string, width int) string { return termtext.Truncate(s, width) }

func padRight(s string, width int) string { return termtext.Pad(s, width) }

func quote(s string) string { return "“" + s + "”" }

func countDocs(n int) string {
	if n == 1 {
		return "1 document"
	}
	return fmt.Sprintf("%d documents", n)
}

// excerpt keeps at most n wrapped lines of text, marking the cut.
func excerpt(text string, n, width int) string {
	lines := wrap(text, width)
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}

func sortStrings(s []string) { sort.Strings(s) }
