package textsafe

import "unicode/utf8"

// ElideMiddle is s on one line, cut to at most n runes by replacing its
// middle with "…" (the start and the end of a quote are what locate it).
func ElideMiddle(s string, n int) string {
	s = OneLine(s)
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
