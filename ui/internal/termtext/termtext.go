// Package termtext makes untrusted text (documents, web pages, model output)
// safe to put on a terminal: escape sequences and control characters are
// removed, tabs become spaces, invalid UTF-8 is replaced, and bidirectional
// overrides (which can make text read differently than it is) are dropped.
package termtext

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Clean returns s with every escape sequence and control character removed.
// Newlines are kept (CR LF and lone CR become LF); a tab becomes four spaces.
func Clean(s string) string {
	if isPlain(s) {
		return s
	}
	if strings.ContainsAny(s, "\x1b\u009b\u009d\u0090\u0098\u009e\u009f") {
		s = ansi.Strip(s)
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune('\uFFFD')
		case r == '\n':
			b.WriteByte('\n')
		case r == '\r':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case unsafeRune(r):
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line is Clean for text that must stay on one line (titles, queries, badges):
// runs of whitespace, newlines included, collapse to one space and the
// result is trimmed.
func Line(s string) string {
	return strings.Join(strings.Fields(Clean(s)), " ")
}

// isPlain reports whether s is printable ASCII plus newlines, the common
// case, which needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			continue
		}
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// unsafeRune reports runes that must never reach a terminal.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f:
		return true // C0 controls (newline and tab are handled before), DEL
	case r >= 0x80 && r <= 0x9f:
		return true // C1 controls, including 8-bit CSI and OSC
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidirectional embeddings, overrides and isolates
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true // directional marks
	case r == 0xfeff:
		return true // byte order mark / zero width no-break space
	}
	return false
}
