package fakellm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CutAtStop cuts text at the earliest occurrence of any stop string, as
// Ollama and llama.cpp do (the stop string itself is not returned).
func CutAtStop(text string, stop []string) (string, string) {
	cut, word := -1, ""
	for _, st := range stop {
		if st == "" {
			continue
		}
		if i := strings.Index(text, st); i >= 0 && (cut < 0 || i < cut) {
			cut, word = i, st
		}
	}
	if cut < 0 {
		return text, ""
	}
	return text[:cut], word
}

// SplitWords splits text into streaming chunks: each chunk is a run of
// whitespace followed by a run of non-whitespace. Joining them gives text
// back unchanged.
func SplitWords(text string) []string {
	var out []string
	start := 0
	inWord := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if space && inWord {
			out = append(out, text[start:i])
			start = i
			inWord = false
		} else if !space {
			inWord = true
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// ApproxTokens estimates a token count as runes/4, rounded up.
func ApproxTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// commonPrefixTokens is the shared prefix of a and b in approximate tokens.
func commonPrefixTokens(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return utf8.RuneCountInString(a[:n]) / 4
}

// cacheHit caps a prefix hit as llama.cpp does: at least one prompt token
// is always evaluated.
func cacheHit(prefix, prompt int) int {
	return max(0, min(prefix, prompt-1))
}
