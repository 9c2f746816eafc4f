package store

import (
	"strings"
	"unicode"
)

// matchQuery turns free text into an FTS4 MATCH expression: every word must
// appear (as a word prefix) in the question or the answer. Words are quoted,
// so nothing the user types is read as FTS syntax (AND, OR, NEAR, -, ", *).
// It returns "" when the text has no words.
func matchQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
	if len(words) == 0 {
		return ""
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + w + `*"`
	}
	return strings.Join(quoted, " ")
}
