package evidence

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"Dr. Smith met J. R. R. Tolkien in the U.S. He paid 3.5 dollars... Then \"Stop.\" she said.",
	"It was founded in 1887 [1]. It grew [2, 3][4]. [5] Next [2-4].",
	"- a\n- b\n\n1. c\n# heading",
	"…“”’ [ [1 [1,] [0] [99999] .. ! ?",
	"Mathilde( c. 1200 – 22 December 1267) was the fourth child. Bolesław I( b. 1127 – d. Leśnica).",
	"\xff\xfe. A. b. C",
	"Nested [[1]2] markers [[3]].",
}

// FuzzSentences: spans lie inside the text, in order, without overlap,
// trimmed, and never empty.
func FuzzSentences(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, s := range Sentences(text) {
			if s.Start < prev || s.End > len(text) || s.Start >= s.End {
				t.Fatalf("span %+v after %d in a text of %d bytes", s, prev, len(text))
			}
			seg := text[s.Start:s.End]
			r, _ := utf8.DecodeRuneInString(seg)
			l, _ := utf8.DecodeLastRuneInString(seg)
			if unicode.IsSpace(r) || unicode.IsSpace(l) {
				t.Fatalf("span %q not trimmed", seg)
			}
			prev = s.End
		}
	})
}

// FuzzSplitClaims: claims lie inside the answer, their citations are
// positive, ascending and distinct, their text carries no marker, and
// aligning them against a passage made of the answer itself never panics.
func FuzzSplitClaims(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		claims := SplitClaims(answer)
		for _, c := range claims {
			if c.Span.Start < 0 || c.Span.End > len(answer) || c.Span.Start > c.Span.End {
				t.Fatalf("span %+v in %d bytes", c.Span, len(answer))
			}
			for i, n := range c.Citations {
				if n <= 0 || n > maxCitation || (i > 0 && n <= c.Citations[i-1]) {
					t.Fatalf("citations %v", c.Citations)
				}
			}
			if strings.TrimSpace(c.Text) != c.Text {
				t.Fatalf("text %q not trimmed", c.Text)
			}
			for i := range len(c.Text) {
				if _, _, ok := citationAt(c.Text, i); ok {
					t.Fatalf("text %q keeps a marker", c.Text)
				}
			}
		}
		rs := Align(answer, []Passage{{N: 1, Title: answer, Text: answer}, {N: 2, Text: strings.ToUpper(answer)}})
		for _, r := range rs {
			for _, q := range r.Support {
				text := answer
				if q.N == 2 {
					text = strings.ToUpper(answer)
				}
				if q.Start < 0 || q.End > len(text) || text[q.Start:q.End] != q.Quote || q.Score < 0 || q.Score > 1 {
					t.Fatalf("quote %+v", q)
				}
			}
		}
	})
}
