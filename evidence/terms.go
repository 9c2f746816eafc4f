package evidence

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// token is one word of a text: its stemmed form and what kind of word it is.
type token struct {
	word    string // lower-cased, before stemming
	term    string // stemmed; empty for a stop word
	number  bool   // digits: a year, a count, a decimal
	capital bool   // written with a capital letter
	pronoun bool   // a third-person pronoun (he, she, it, they, his, …)
}

// stopwords carry no weight: function words and the question words.
func newStopwords() map[string]bool {
	stopwords := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be
		because been before being below between both but by can could did do does doing down during each
		few for from further had has have having he her here hers herself him himself his how i if in into
		is it its itself just me more most my myself no nor not now of off on once only or other our ours
		out over own same she should so some such than that the their theirs them themselves then there
		these they this those through to too under until up very was we were what when where which while
		who whom whose why will with would you your yours yourself s t one ones whether either neither
		which what whose name named called also another many much may might must shall upon within
		without yet via per among amongst across along around according yes`) {
		stopwords[w] = true
	}
	return stopwords
}

func newPronouns() map[string]bool {
	return map[string]bool{
		"he": true, "she": true, "it": true, "they": true, "his": true, "her": true,
		"its": true, "their": true, "him": true, "them": true, "hers": true, "theirs": true,
	}
}

// tokens splits text into words. Letters and digits make words; an inner
// apostrophe stays in the word (and a possessive 's is dropped); digits
// joined by '.' or ',' stay one number ("3.5", "1,000" → "1000").
func tokens(text string, out []token) []token {
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			i += n
			continue
		}
		if isCJK(r) {
			i, out = cjkTokens(text, i, out)
			continue
		}
		start := i
		digits := unicode.IsDigit(r)
		// Most words are lower-case ASCII letters: take them from the text
		// as they are, without a copy.
		j := i
		for j < len(text) && text[j] >= 'a' && text[j] <= 'z' {
			j++
		}
		if j > i && (j == len(text) || plainEnd(text[j])) {
			i = j
			out = appendToken(out, text[start:j], false, false)
			continue
		}
		var b strings.Builder
		for i < len(text) {
			r, n = utf8.DecodeRuneInString(text[i:])
			if (unicode.IsLetter(r) || unicode.IsDigit(r)) && !isCJK(r) {
				b.WriteRune(fold(unicode.ToLower(r)))
				i += n
				continue
			}
			if (r == '\'' || r == '’') && i+n < len(text) {
				nr, _ := utf8.DecodeRuneInString(text[i+n:])
				if unicode.IsLetter(nr) {
					b.WriteByte('\'')
					i += n
					continue
				}
			}
			if digits && (r == '.' || r == ',') && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
				if r == '.' {
					b.WriteByte('.')
				}
				i++
				continue
			}
			break
		}
		w := b.String()
		if k := strings.LastIndexByte(w, '\''); k >= 0 {
			// "peart's" → "peart", "don't" → "don't", "o'brien" → "obrien"
			switch suf := w[k+1:]; suf {
			case "s":
				w = w[:k]
			case "t", "re", "ve", "ll", "d", "m":
			default:
				w = w[:k] + suf
			}
		}
		first, _ := utf8.DecodeRuneInString(text[start:])
		out = appendToken(out, w, digits && isNumber(w), unicode.IsUpper(first))
	}
	return out
}

// isCJK says whether r is written without spaces between words: a Han
// character, or Japanese kana.
func isCJK(r rune) bool {
	return r >= 0x3040 && (unicode.Is(unicode.Han, r) || unicode.In(r, unicode.Hiragana, unicode.Katakana))
}

// cjkTokens reads the run of CJK characters at i as its overlapping pairs
// of characters ("石拱桥" → "石拱", "拱桥"; one character alone is a
// token): text without spaces has no words to split, and a claim that
// says a thing in other words shares pairs with its source. It returns
// where the run ends.
func cjkTokens(text string, i int, out []token) (int, []token) {
	var runes []int // byte offsets of the run's characters, then its end
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isCJK(r) {
			break
		}
		runes = append(runes, i)
		i += n
	}
	runes = append(runes, i)
	if len(runes) == 2 {
		return i, appendToken(out, text[runes[0]:runes[1]], false, false)
	}
	for k := 0; k+2 < len(runes); k++ {
		out = appendToken(out, text[runes[k]:runes[k+2]], false, false)
	}
	return i, out
}

// fold drops a Latin letter's accent ("é" → "e", "ì" → "i", "ł" stays):
// names are often written without theirs ("Benitez", "Benìtez").
func fold(r rune) rune {
	if r < 0xC0 || r >= 0x250 {
		return r
	}
	d := norm.NFD.String(string(r))
	if c := d[0]; c < 0x80 {
		return rune(c)
	}
	return r
}

// plainEnd says whether byte c may follow a plain lower-case word: not a
// letter or digit (UTF-8 included), an apostrophe or a dot of a number.
func plainEnd(c byte) bool {
	return c < 0x80 && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '\''
}

func appendToken(out []token, w string, number, capital bool) []token {
	tok := token{word: w, number: number, capital: capital, pronoun: lex().pronouns[w]}
	switch c, ok := lex().concepts[w]; {
	case lex().stopwords[w]:
	case tok.number:
		tok.term = w
	case ok:
		tok.term = c
	default:
		tok.term = stem(w)
	}
	return append(out, tok)
}

// hasDate says whether tokens carry a year or a month's name.
func hasDate(toks []token) bool {
	for _, t := range toks {
		if lex().months[t.word] || (t.number && len(t.word) == 4 && (t.word[0] == '1' || t.word[0] == '2')) {
			return true
		}
	}
	return false
}

// asksDate says whether a claim speaks of time (born, died, older, first…).
// Born or died next to "where" or "place" ask for a place ("the place of
// birth of the director"), not a date.
func asksDate(toks []token) bool {
	place := false
	for _, t := range toks {
		place = place || t.word == "where" || t.word == "place" || t.word == "places"
	}
	for _, t := range toks {
		if place && (t.term == "~born" || t.term == "~die") {
			continue
		}
		if lex().dateCue[t.word] || lex().dateCue[t.term] {
			return true
		}
	}
	return false
}

// asksLifeDate says whether a claim speaks of when someone was born or
// died: "born later", "died in 1934", but not "born in Tampere" or "where
// was she born" (a place).
func asksLifeDate(toks []token) bool {
	for _, t := range toks {
		if t.word == "where" || t.word == "place" || t.word == "places" {
			return false
		}
	}
	for i, t := range toks {
		if t.term != "~born" && t.term != "~die" {
			continue
		}
		if i+2 < len(toks) && (toks[i+1].word == "in" || toks[i+1].word == "at") &&
			toks[i+2].capital && !toks[i+2].number && !lex().months[toks[i+2].word] {
			continue
		}
		return true
	}
	return false
}

func isNumber(w string) bool {
	for i := 0; i < len(w); i++ {
		if (w[i] < '0' || w[i] > '9') && w[i] != '.' {
			return false
		}
	}
	return true
}

// stem is a light English stemmer: plurals, -ed, -ing and a final -e go,
// so "released", "releases" and "release" meet, as do "directed" and
// "direct". It never shortens a word below three letters.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "es") && len(w) > 4 && strings.ContainsAny(w[len(w)-3:len(w)-2], "sxz"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5 && hasVowel(w[:len(w)-3]):
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4 && hasVowel(w[:len(w)-2]):
		w = undouble(w[:len(w)-2])
	}
	// A people's adjective meets its place: "African" and "Africa",
	// "Russian" and "Russia", "Korean" and "Korea".
	if len(w) > 5 && (strings.HasSuffix(w, "ian") || strings.HasSuffix(w, "can") || strings.HasSuffix(w, "ean")) {
		w = w[:len(w)-1]
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	if strings.HasSuffix(w, "y") && len(w) > 3 {
		w = w[:len(w)-1] + "i"
	}
	return w
}

func hasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

// undouble drops one of a final doubled consonant ("stopp" → "stop"),
// keeping ll, ss and zz ("install", "pass").
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// hasQty says whether tokens carry an amount: a number that is not a year,
// a number word, or a rank ("23rd").
func hasQty(toks []token) bool {
	for _, t := range toks {
		w := t.word
		switch {
		case t.number && !(len(w) == 4 && (w[0] == '1' || w[0] == '2')):
			return true
		case lex().qtyWords[w]:
			return true
		case len(w) > 2 && w[0] >= '0' && w[0] <= '9' && (strings.HasSuffix(w, "st") || strings.HasSuffix(w, "nd") ||
			strings.HasSuffix(w, "rd") || strings.HasSuffix(w, "th")):
			return true
		}
	}
	return false
}

// asksQty says whether a claim speaks of an amount (how many, more, taller…).
// "More" and "most" before a word of time ask for a date, not an amount
// ("most recently", "more recent").
func asksQty(toks []token) bool {
	for i, t := range toks {
		if !lex().qtyCue[t.word] || t.capital {
			continue
		}
		if (t.word == "more" || t.word == "most") && i+1 < len(toks) && lex().dateCue[toks[i+1].word] {
			continue
		}
		return true
	}
	return false
}

// lifespan says whether a sentence gives a life's span in parentheses, as
// encyclopedia articles open: "Philip Braham (18 June 1881 – 2 May 1934)".
// Such a sentence tells when someone was born and died without the words.
func lifespan(text string) bool {
	for {
		open := strings.IndexByte(text, '(')
		if open < 0 {
			return false
		}
		text = text[open+1:]
		end := strings.IndexByte(text, ')')
		if end < 0 {
			end = len(text)
		}
		in := text[:end]
		if dash := strings.IndexAny(in, "–—-"); dash > 0 && hasYear(in[:dash]) && hasYear(in[dash:]) {
			return true
		}
		text = text[end:]
	}
}

// hasYear says whether s holds four digits in a row that may be a year.
func hasYear(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			run++
			continue
		}
		if run == 4 {
			return true
		}
		run = 0
	}
	return run == 4
}
