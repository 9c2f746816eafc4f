// Package evidence finds, for each claim of an answer, the sentence or
// sentences of its cited passages that support it: a deterministic aligner
// (no model call) over the passages' sentences.
//
// It is a leaf package: it knows nothing of the engine, the store or the UI.
// Offsets are byte offsets into the strings given.
package evidence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a half-open byte range [Start, End) of a text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// titleAbbrev never end a sentence: titles, which precede a name
// ("Dr. Smith", "St. Louis").
func newTitleAbbrev() map[string]bool {
	return map[string]bool{
		"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true,
		"mt": true, "ft": true, "gen": true, "gov": true, "sen": true, "rep": true,
		"rev": true, "sgt": true, "cpl": true, "lt": true, "col": true, "capt": true,
		"maj": true, "adm": true, "pres": true, "hon": true, "fr": true, "sr": true,
		"jr": true, "messrs": true, "mme": true, "mlle": true, "gov't": true,
	}
}

// numberAbbrev do not end a sentence before a number ("No. 5", "Jan. 12",
// "pp. 3", "c. 1465", "b. 1127"); before a word they do ("… of art. The").
func newNumberAbbrev() map[string]bool {
	return map[string]bool{
		"no": true, "nos": true, "vol": true, "vols": true, "pp": true,
		"fig": true, "art": true, "ch": true, "sec": true, "op": true, "ca": true,
		"fl": true, "jan": true,
		"feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
		"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	}
}

// endAbbrev may end a sentence: they end one only when the next word is a
// usual sentence opener ("… Apple Inc. The company …").
func newEndAbbrev() map[string]bool {
	return map[string]bool{
		"inc": true, "ltd": true, "co": true, "corp": true, "llc": true, "plc": true,
		"etc": true, "esq": true, "phd": true, "bc": true, "ad": true, "vs": true,
		"v": true, "cf": true, "approx": true, "al": true, "est": true,
		"ed": true, "eds": true, "ave": true, "blvd": true, "rd": true, "bros": true,
		"dept": true, "univ": true, "assn": true, "mon": true, "tue": true, "wed": true,
		"thu": true, "fri": true, "sat": true, "sun": true,
	}
}

// openers are words that usually begin a sentence; after an ambiguous
// abbreviation ("U.S.", "Inc.", "etc.") they mark a boundary.
func newOpeners() map[string]bool {
	return map[string]bool{
		"the": true, "a": true, "an": true, "he": true, "she": true, "it": true,
		"they": true, "we": true, "i": true, "this": true, "these": true, "that": true,
		"those": true, "his": true, "her": true, "its": true, "their": true, "in": true,
		"on": true, "at": true, "after": true, "before": true, "during": true,
		"however": true, "there": true, "as": true, "when": true, "while": true,
		"since": true, "from": true, "by": true, "for": true, "but": true, "and": true,
		"although": true, "both": true, "today": true, "later": true, "then": true,
		"also": true, "many": true, "some": true, "one": true, "following": true,
		"if": true, "what": true, "who": true, "you": true,
	}
}

// Sentences splits text into sentences and returns their spans, trimmed of
// surrounding white space. It survives abbreviations (Dr., U.S., e.g., St.,
// Inc., Jan.), initials (J. R. R. Tolkien), decimals (3.5), ellipses and
// closing quotes; a blank line or a list item also starts a sentence.
func Sentences(text string) []Span {
	var out []Span
	start := 0
	emit := func(end int) {
		s, e := trimSpan(text, start, end)
		if e > s {
			out = append(out, Span{s, e})
		}
		start = end
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			// A blank line, a new line opening a list item or heading, or
			// the end of a heading or table line.
			j := i + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
				j++
			}
			if j < len(text) && (text[j] == '\n' || listItemAt(text, j)) || lineMarkup(lineBefore(text, i)) {
				emit(i)
			}
			i++
			continue
		case c >= 0xE3 && cjkStop(text[i:]):
			// 。！？ end a sentence whatever follows (no abbreviations, no
			// space after them).
			end := punctEnd(text, i)
			emit(end)
			i = end
			continue
		case c == '.' || c == '!' || c == '?' || strings.HasPrefix(text[i:], "…"):
			end := punctEnd(text, i)
			if boundaryAfter(text, i, end) {
				emit(end)
			}
			i = end
			continue
		}
		i++
	}
	emit(len(text))
	return out
}

// punctEnd returns the end of the run of terminal punctuation starting at i,
// closing quotes and brackets included.
func punctEnd(text string, i int) int {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '.', '!', '?', '…', '"', '\'', '”', '’', ')', ']', '»', '。', '！', '？', '」', '』', '）', '》':
			i += n
			continue
		}
		break
	}
	return i
}

// cjkStop says whether s starts with a full stop, exclamation or question
// mark of Chinese or Japanese text (。！？).
func cjkStop(s string) bool {
	return strings.HasPrefix(s, "。") || strings.HasPrefix(s, "！") || strings.HasPrefix(s, "？")
}

// boundaryAfter says whether the punctuation run text[i:end] ends a
// sentence.
func boundaryAfter(text string, i, end int) bool {
	if end >= len(text) {
		return true
	}
	// White space must follow ("3.5", "e.g.," and "U.S.-based" stay whole).
	j := end
	for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n') {
		j++
	}
	if j == end {
		return false
	}
	if j >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[j:])
	if !startsSentence(r) {
		return false
	}
	if text[i] != '.' || strings.HasPrefix(text[i:end], "..") {
		return true // '!', '?', an ellipsis before a capital
	}
	word := wordBefore(text, i)
	next := strings.ToLower(wordAt(text, j))
	lw := strings.ToLower(word)
	switch {
	case word == "":
		return true
	case lex().titleAbbrev[lw]:
		return false
	case lex().numberAbbrev[lw]:
		r, _ := utf8.DecodeRuneInString(text[j:])
		return !unicode.IsDigit(r)
	case utf8.RuneCountInString(word) == 1:
		// An initial ("J. R. R. Tolkien") or a one-letter abbreviation
		// ("c. 1465", "d. Leśnica"), unless a usual opener follows.
		return lex().openers[next] && !unicode.IsDigit(firstRune(text[j:]))
	case lex().endAbbrev[lw] || strings.Contains(word, "."):
		// "Inc.", "etc.", "U.S.", "e.g.": a boundary only before an opener.
		return lex().openers[next]
	}
	return true
}

func startsSentence(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsDigit(r) || r == '"' || r == '\'' || r == '“' ||
		r == '‘' || r == '(' || r == '[' || r == '*' || r == '-' || r == '«' || unicode.IsTitle(r)
}

// wordBefore returns the word (letters, digits and inner dots) ending just
// before byte i.
func wordBefore(text string, i int) string {
	j := i
	for j > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:j])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.') {
			break
		}
		j -= n
	}
	return strings.Trim(text[j:i], ".")
}

// wordAt returns the letters starting at byte j, after any opening quote.
func wordAt(text string, j int) string {
	for j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			break
		}
		j += n
	}
	k := j
	for k < len(text) {
		r, n := utf8.DecodeRuneInString(text[k:])
		if !unicode.IsLetter(r) {
			break
		}
		k += n
	}
	return text[j:k]
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// listItemAt says whether a list item ("- ", "* ", "1. ", "1) ") or a
// Markdown heading starts at byte j.
func listItemAt(text string, j int) bool {
	rest := text[j:]
	if strings.HasPrefix(rest, "- ") || strings.HasPrefix(rest, "* ") || strings.HasPrefix(rest, "• ") || strings.HasPrefix(rest, "#") {
		return true
	}
	k := 0
	for k < len(rest) && k < 4 && rest[k] >= '0' && rest[k] <= '9' {
		k++
	}
	return k > 0 && k+1 < len(rest) && (rest[k] == '.' || rest[k] == ')') && rest[k+1] == ' '
}

// trimSpan narrows [s, e) past white space on both sides.
func trimSpan(text string, s, e int) (int, int) {
	for s < e {
		r, n := utf8.DecodeRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		s += n
	}
	for e > s {
		r, n := utf8.DecodeLastRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		e -= n
	}
	return s, e
}

// lineBefore is the line of text that ends at byte i (a newline).
func lineBefore(text string, i int) string {
	return text[strings.LastIndexByte(text[:i], '\n')+1 : i]
}

// lineMarkup says whether a line is Markdown structure rather than prose:
// an ATX heading ("# Sihwa Lake", "## History"), a table row ("| a | b |")
// or a rule ("---", "***", "==="; a setext heading's underline too).
func lineMarkup(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	if h := strings.TrimLeft(t, "#"); len(h) < len(t) && len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
		return true
	}
	if t[0] == '|' {
		return true
	}
	return len(t) >= 3 && strings.Trim(t, "-*=_ ") == ""
}

// IsMarkup says whether a sentence (a span of Sentences) is Markdown
// structure, not prose: a heading, a table row or a rule. It is never a
// quote.
func IsMarkup(sentence string) bool {
	first, _, _ := strings.Cut(sentence, "\n")
	return lineMarkup(first)
}

// IsHeading says whether a sentence is a heading or a rule: it claims
// nothing. (A table row of an answer may: "| Olsen | died 1974 [2] |".)
func IsHeading(sentence string) bool {
	return IsMarkup(sentence) && !strings.HasPrefix(strings.TrimSpace(sentence), "|")
}

// Quotable says whether a sentence may be offered as a supporting quote:
// prose, not markup (IsMarkup), and not a fragment: a line without a
// sentence's closing punctuation needs at least four words ("Sihwa Lake",
// "Early life", a caption or a menu item say nothing of a claim).
func Quotable(sentence string) bool {
	if IsMarkup(sentence) {
		return false
	}
	t := strings.TrimRight(sentence, "\"'”’)]» \t」』）》")
	if strings.HasSuffix(t, ".") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, "?") || strings.HasSuffix(t, "…") ||
		strings.HasSuffix(t, "。") || strings.HasSuffix(t, "！") || strings.HasSuffix(t, "？") {
		return true
	}
	return len(strings.Fields(sentence)) >= 4
}
