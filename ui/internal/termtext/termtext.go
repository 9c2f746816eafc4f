// Package termtext prepares untrusted text (documents, web pages, model
// output) for the TUI. The project-wide sanitizer, textsafe.ForTerminal,
// removes escape sequences and control characters; on top of it the TUI
// needs tabs as spaces (a tab's width depends on the column, which breaks
// wrapping) and one-line forms for titles, queries and badges.
package termtext

import (
	"strings"

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
