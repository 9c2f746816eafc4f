package distinct

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a text as the fingerprint reads it: a run of
// letters and digits, joined through single connectors (- _ . / @ ' ’)
// that stand between two of them ("hunter2-ZEBRA", "j.doe@acme.com",
// "O'Brien"; "3.14"; not "end." nor "1,000", where ',' separates).
type token struct {
	raw     string // as written
	norm    string // lower case, ’ as ', a possessive 's dropped
	start   int    // byte offset of raw in the text
	letters int
	digits  int
	joined  bool // holds a connector
	upper   bool // starts with an upper-case letter
	initial bool // begins a sentence, a line or a title: its case is no evidence
}

func isConnector(r rune) bool {
	switch r {
	case '-', '_', '.', '/', '@', '\'', '’':
		return true
	}
	return false
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// isCJK says whether r is of a script written against its neighbours, with
// no space: Han, kana and Hangul. A word ends where the script changes, so
// an identifier written against such text ("密码是ZEBRA7731，") is a token
// of its own.
func isCJK(r rune) bool {
	return r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul))
}

// sameWord says whether r continues a word whose first rune was of the
// CJK scripts or not (cjk).
func sameWord(r rune, cjk bool) bool {
	return isWordRune(r) && isCJK(r) == cjk
}

// tokenize calls fn with each token of s in order. In a title every token
// is initial (titles are capitalised as titles).
func tokenize(s string, title bool, fn func(token)) {
	initial := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			switch r {
			case '.', '!', '?', '\n', ':', ';', '•', '|':
				initial = true
			}
			i += size
			continue
		}
		start := i
		t := token{initial: initial || title}
		cjk := isCJK(r)
		for i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
			if sameWord(r, cjk) {
				if i == start {
					t.upper = unicode.IsUpper(r)
				}
				switch {
				case unicode.IsLetter(r):
					t.letters++
				case unicode.IsDigit(r):
					t.digits++
				}
				i += size
				continue
			}
			if !isConnector(r) || i+size >= len(s) {
				break
			}
			next, _ := utf8.DecodeRuneInString(s[i+size:])
			if !sameWord(next, cjk) {
				break
			}
			t.joined = true
			i += size
		}
		t.raw, t.start = s[start:i], start
		t.norm = normalise(t.raw)
		t.joined = t.joined && strings.ContainsFunc(t.norm, isConnector)
		initial = false
		fn(t)
	}
}

// normalise is a token's lookup form: lower case, ’ as ', without a
// possessive 's.
func normalise(raw string) string {
	n := strings.ToLower(strings.ReplaceAll(raw, "’", "'"))
	if b, ok := strings.CutSuffix(n, "'s"); ok && b != "" {
		n = b
	}
	return n
}

// parts splits a joined token at its connectors into tokens of its own
// (the first keeps the token's case and position); nil for a plain token.
func (t token) parts() []token {
	if !t.joined {
		return nil
	}
	var out []token
	first := true
	tokenizeParts(t.raw, func(p token) {
		p.start += t.start
		p.initial = t.initial && first
		first = false
		out = append(out, p)
	})
	return out
}

// tokenizeParts splits s at every non-word rune.
func tokenizeParts(s string, fn func(token)) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		start := i
		p := token{upper: unicode.IsUpper(r)}
		cjk := isCJK(r)
		for i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !sameWord(r, cjk) {
				break
			}
			if unicode.IsLetter(r) {
				p.letters++
			} else if unicode.IsDigit(r) {
				p.digits++
			}
			i += size
		}
		p.raw, p.start = s[start:i], start
		p.norm = normalise(p.raw)
		fn(p)
	}
}
