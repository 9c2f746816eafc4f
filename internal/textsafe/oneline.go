package textsafe

import (
	"strconv"
	"strings"
)

// OneLine is ForTerminal for text that must stay on one line: titles,
// locators, URLs, snippets, notes. Every run of white space (newlines, tabs,
// U+2028/U+2029 and the other Unicode spaces included) becomes one space and
// the result is trimmed, so a document's title can never start a line of its
// own in a listing (a title holding "\nFinal answer:\n…" would otherwise
// print a forged answer block).
func OneLine(s string) string {
	s = ForTerminal(s)
	if isOneLine(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether s is printable ASCII without leading, trailing
// or doubled spaces, which OneLine leaves as it is.
func isOneLine(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			return false
		}
		if c == ' ' {
			if prevSpace {
				return false
			}
			prevSpace = true
			continue
		}
		prevSpace = false
	}
	return !prevSpace || s == ""
}

// Hang prepares multi-line untrusted text for a text listing whose own
// labels start at the left margin: control sequences go (ForTerminal),
// surrounding blank space is trimmed and every line after the first is
// indented by prefix. Text from a model or a document then cannot print a
// line that looks like one of the program's own (an unindented
// "Final answer:" or "Sources:").
func Hang(s, prefix string) string {
	s = strings.TrimSpace(ForTerminal(s))
	if !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			lines[i] = ""
			continue
		}
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}

// Literal is s for a place where it must be typed back (an id): s itself
// when it prints as it is, else its Go-quoted form (strconv.Quote), whose
// escapes show every control character and space instead of obeying it.
func Literal(s string) string {
	if s != "" && OneLine(s) == s && !strings.ContainsRune(s, '"') {
		return s
	}
	return strconv.Quote(s)
}
