package manticore

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Limits of the MATCH expression built from a question: a longer question
// keeps its first maxWords distinct words, and a longer word its first
// maxWordRunes characters (Sphinx itself stops at 42 bytes).
const (
	maxWords     = 64
	maxWordRunes = 64
)

// MaxK is the most documents one search asks for: max_matches, the size of
// the server's result window, is 1000 by default in Sphinx and Manticore, and
// a LIMIT past it is an error there.
const MaxK = 1000

// Ranking is the OPTION clause of every search: BM25F with k1 = 1.2 and
// b = 0.75 (textbook BM25 with length normalisation over all full-text
// fields), evaluated by the expression ranker, which Sphinx 2.1+ and every
// Manticore version accept. WEIGHT() is an integer there, hence the scale.
// Length normalisation needs index_field_lengths = 1 in the index; without
// it Sphinx 2.2 still ranks, with its own approximation of field lengths.
const Ranking = "ranker=expr('10000*bm25f(1.2,0.75)')"

// fallbackRanking is used when a server refuses Ranking: Sphinx's built-in
// BM25 ranker (BM25 with k1 = 1.2 and no length normalisation), valid in
// every Sphinx and Manticore version.
const fallbackRanking = "ranker=bm25"

// Words returns the question's words as the server's tokenizer would see
// them at best: runs of letters, digits and combining marks (after NFC),
// lower-cased, without duplicates, at most maxWords of at most maxWordRunes
// characters. Every other character (quotes, backslashes, @, -, |, !, /, ^,
// $, parentheses, =, *, ~, <, semicolons…) separates words. Lower-casing
// disarms the operator words of the extended syntax (MAYBE, NEAR, NOTNEAR,
// SENTENCE, PARAGRAPH, ZONE, ZONESPAN are operators only in upper case); the
// index folds case anyway.
func Words(question string) []string {
	question = norm.NFC.String(strings.ToValidUTF8(question, " "))
	var words []string
	seen := map[string]bool{}
	var b strings.Builder
	n := 0
	flush := func() {
		if b.Len() > 0 {
			w := strings.ToLower(b.String())
			// ToLower can yield characters that are not letters (rare
			// special cases); keep only the safe ones.
			w = strings.Map(func(r rune) rune {
				if isWordRune(r) {
					return r
				}
				return -1
			}, w)
			if w != "" && !seen[w] && len(words) < maxWords {
				seen[w] = true
				words = append(words, w)
			}
			b.Reset()
		}
		n = 0
	}
	for _, r := range question {
		if !isWordRune(r) {
			flush()
			continue
		}
		if n < maxWordRunes {
			b.WriteRune(r)
		}
		n++
	}
	flush()
	return words
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// MatchExpr turns a natural-language question into an extended-syntax query
// with OR semantics: the quorum operator "w1 w2 …"/1 (a document matches
// when it holds at least one of the words) over the question's Words. It is
// "" when the question has no word, and then nothing should be searched.
func MatchExpr(question string) string {
	words := Words(question)
	if len(words) == 0 {
		return ""
	}
	return `"` + strings.Join(words, " ") + `"/1`
}

// QuoteString returns s as a SphinxQL string literal: in single quotes,
// with backslash and single quote escaped by a backslash. The server's
// parser unescapes any backslash-escaped character; NUL bytes end a C
// string inside the server, so they are dropped, as are other C0 controls
// and invalid UTF-8. There are no server-side prepared statements in
// SphinxQL, so every value goes through here.
func QuoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for _, r := range strings.ToValidUTF8(s, "") {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// validIdent reports whether s can be written into a statement as a
// column or index name as it is: a letter or "_", then up to 63 letters,
// digits or "_". (A hand-written check: the regular expression it
// replaced was compiled at every start of the binary.)
func validIdent(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// validIndex accepts one index name or a comma-separated list of them
// (SphinxQL searches several indexes as one).
func validIndex(s string) bool {
	parts := strings.Split(s, ",")
	for _, p := range parts {
		if !validIdent(strings.TrimSpace(p)) {
			return false
		}
	}
	return s != ""
}

// selectStatement is the search statement for an already built MATCH
// expression.
func selectStatement(cols []string, index, match string, k int, ranking string, maxQueryMS int64) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	b.WriteString(strings.Join(cols, ", "))
	b.WriteString(", WEIGHT() AS prefrag_weight FROM ")
	b.WriteString(index)
	b.WriteString(" WHERE MATCH(")
	b.WriteString(QuoteString(match))
	b.WriteString(") ORDER BY WEIGHT() DESC, id ASC LIMIT 0,")
	b.WriteString(strconv.Itoa(k))
	b.WriteString(" OPTION ")
	b.WriteString(ranking)
	if maxQueryMS > 0 {
		fmt.Fprintf(&b, ", max_query_time=%d", maxQueryMS)
	}
	return b.String()
}
