// Package termtext prepares untrusted text (documents, web pages, model
// output) for the TUI. The project-wide sanitizer, textsafe.ForTerminal,
// removes escape sequences and control characters; on top of it the TUI
// needs tabs as spaces (a tab's width depends on the column, which breaks
// wrapping) and one-line forms for titles, queries and badges.
package termtext

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// Clean returns s without escape sequences or control characters; newlines
// are kept (CR LF becomes LF) and a tab becomes four spaces.
func Clean(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = textsafe.ForTerminal(s)
	if strings.IndexByte(s, '\t') >= 0 {
		s = strings.ReplaceAll(s, "\t", "    ")
	}
	return s
}

// Line is Clean for text that must stay on one line (titles, queries,
// badges): runs of whitespace, newlines included, collapse to one space and
// the result is trimmed.
func Line(s string) string {
	return strings.Join(strings.Fields(Clean(s)), " ")
}

// Truncate cuts s (styled or not) to width columns with an ellipsis.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// Pad pads s (styled or not) with spaces to width columns.
func Pad(s string, width int) string {
	if n := width - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
