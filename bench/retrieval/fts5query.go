package retrieval

import (
	"strings"
	"unicode"
)

// FTS5Tokenizer is the FTS5 tokenizer of the reference index: Porter
// stemming over the unicode61 tokenizer with diacritics folded.
const FTS5Tokenizer = "porter unicode61 remove_diacritics 2"

// FTS5MatchQuery turns a natural-language query into an FTS5 MATCH
// expression: every run of letters, digits and combining marks becomes a
// quoted term, and the terms are joined with OR, so no query text is read as
// FTS5 syntax (column filters, NEAR, NOT, prefixes). Repeated words stay
// repeated, as bm25() then counts them once per occurrence, like the Bleve
// scorer's query term weights. It returns "" when the query has no word.
func FTS5MatchQuery(q string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r)
	}) {
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(word)
		b.WriteByte('"')
	}
	return b.String()
}
