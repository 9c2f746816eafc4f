// Package textsafe makes untrusted text (local files, web pages, model
// output) safe for the two places it goes: a terminal and a prompt.
package textsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/internal/protocol"
)

// ForTerminal removes escape sequences (CSI, OSC, DCS, …) and control
// characters except newline and tab, and replaces invalid UTF-8, so that
// printed text cannot move the cursor, retitle the window or hide content.
func ForTerminal(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b: // ESC: skip the whole sequence
			i = skipEscape(s, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune('\uFFFD')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			// a lone CR would overwrite the line: drop it
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC/DCS/SOS/PM/APC
			i = skipString(s, i+size)
			continue
		case unicode.IsControl(r):
		case r == '\u202e' || r == '\u202d' || r == '\u2066' || r == '\u2067' || r == '\u2068' || r == '\u2069' || r == '\u202a' || r == '\u202b' || r == '\u202c':
			// bidirectional overrides can disguise text
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 {
			return false
		}
	}
	return true
}

// skipEscape returns the index after the escape sequence starting at s[i].
func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: until BEL or ST
		return skipString(s, i+1)
	default:
		// two-byte sequence (ESC c, ESC 7, ESC ( B …)
		if s[i] >= 0x20 && s[i] <= 0x2f && i+1 < len(s) {
			return i + 2
		}
		return i + 1
	}
}

// skipCSI skips parameters and intermediates, then the final byte 0x40–0x7e.
func skipCSI(s string, i int) int {
	for i < len(s) && !(s[i] >= 0x40 && s[i] <= 0x7e) {
		i++
	}
	if i < len(s) {
		i++
	}
	return i
}

// skipString skips a control string ended by BEL, ESC \ or C1 ST.
func skipString(s string, i int) int {
	for i < len(s) {
		if s[i] == 0x07 {
			return i + 1
		}
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
			return i + 2
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x9c {
			return i + size
		}
		i += size
	}
	return i
}

// protocolLabel matches a label of the reasoning format (internal/protocol,
// the table the step parser reads) with its colon. In a document labels are
// data, so ForPrompt defangs them wherever they appear.
var protocolLabel = lazyre.New(`(?i)(` + protocol.Words() + `)(` + protocol.Gap + `)` + protocol.Colon)

// ForPrompt prepares document text for a prompt: control characters go,
// all whitespace (newlines included) collapses to single spaces so no line
// of a document can start a protocol line, and protocol labels lose their
// colon ("Final Answer:" and "Final Answer：" become "Final Answer -"), so
// neither the model nor the parser can take them for the loop's own
// markers. A label glued to a letter or digit before it ("Afterthought:")
// is a word of its own and kept.
func ForPrompt(s string) string {
	s = ForTerminal(s)
	s = strings.Join(strings.Fields(s), " ")
	if !mayHoldLabel(s) {
		return s
	}
	locs := protocolLabel().FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if gluedToWord(s, l[0]) {
			continue
		}
		b.WriteString(s[last:l[0]])
		b.WriteString(s[l[2]:l[5]]) // the label and what stood before its colon
		b.WriteString(" -")
		last = l[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// gluedToWord reports whether the text at i follows a letter or a digit,
// which makes a label there the end of another word ("Transaction:").
func gluedToWord(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return i > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// labelWords are the first words of every protocol label, lower-case.
var labelWords = []string{"thought", "action", "observation", "final", "self", "explanation", "improvement"}

// mayHoldLabel is a cheap test that skips the regular expression for the
// many documents that hold no label word followed by a colon. Case
// folding, which the expression does, turns one letter outside ASCII into
// a letter of the labels: the long s ("ſelf").
func mayHoldLabel(s string) bool {
	if !strings.Contains(s, ":") && !strings.Contains(s, "：") {
		return false
	}
	low := strings.ToLower(strings.ReplaceAll(s, "ſ", "s"))
	for _, w := range labelWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// Truncate cuts s to at most n runes, adding "…" when it cut.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
