package eval

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The metrics below reproduce the PrefRAG reference implementation
// (src/utils.py of the authors' code), including Python's string semantics:
//
//   - Acc: some gold answer, lower-cased, is a substring of the lower-cased
//     prediction (no other normalisation).
//   - Acc for yes/no datasets: some gold answer occurs in the lower-cased
//     prediction between word boundaries (re.search(r"\bans\b")); answers
//     are matched literally.
//   - EM: SQuAD normalisation (lower-case, strip ASCII punctuation, drop the
//     words a/an/the, collapse whitespace) of prediction and gold are equal,
//     maximum over the gold answers.
//   - F1: token F1 of the normalised strings, maximum over the gold answers;
//     no common token (or an empty side) scores 0.
//
// Dataset figures are 100 × mean, rounded to two decimals as Python's
// round(x, 2) does (Percent).

// Scores are one prediction's metrics, each in [0, 1].
type Scores struct {
	Acc float64 `json:"acc"`
	EM  float64 `json:"em"`
	F1  float64 `json:"f1"`
}

// Score computes the three metrics of one prediction. yesNo selects the
// word-boundary accuracy of yes/no datasets.
func Score(prediction string, gold []string, yesNo bool) Scores {
	var s Scores
	if yesNo {
		s.Acc = b2f(YesNoAccuracy(prediction, gold))
	} else {
		s.Acc = b2f(Accuracy(prediction, gold))
	}
	s.EM = b2f(ExactMatch(prediction, gold))
	s.F1 = F1(prediction, gold)
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Accuracy reports whether a gold answer is contained in the prediction,
// both lower-cased.
func Accuracy(prediction string, gold []string) bool {
	p := pyLower(prediction)
	for _, g := range gold {
		if strings.Contains(p, pyLower(g)) {
			return true
		}
	}
	return false
}

// YesNoAccuracy reports whether a gold answer occurs in the lower-cased
// prediction with a word boundary on each side.
func YesNoAccuracy(prediction string, gold []string) bool {
	p := pyLower(prediction)
	for _, g := range gold {
		if containsBounded(p, pyLower(g)) {
			return true
		}
	}
	return false
}

// containsBounded is re.search(r"\b" + needle + r"\b", s) for a literal
// needle, with Python's Unicode word characters.
func containsBounded(s, needle string) bool {
	if needle == "" {
		// \b\b matches only where a boundary exists.
		for i := 0; i <= len(s); {
			if boundaryAt(s, i) {
				return true
			}
			if i == len(s) {
				break
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
		}
		return false
	}
	for from := 0; from <= len(s)-len(needle); {
		j := strings.Index(s[from:], needle)
		if j < 0 {
			return false
		}
		at := from + j
		if boundaryAt(s, at) && boundaryAt(s, at+len(needle)) {
			return true
		}
		_, n := utf8.DecodeRuneInString(s[at:])
		from = at + n
	}
	return false
}

// boundaryAt reports whether \b matches at byte offset i of s.
func boundaryAt(s string, i int) bool {
	before, after := false, false
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		before = isPyWord(r)
	}
	if i < len(s) {
		r, _ := utf8.DecodeRuneInString(s[i:])
		after = isPyWord(r)
	}
	return before != after
}

// isPyWord is Python's \w for str patterns: alphanumeric or underscore.
func isPyWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// isPySpace is Python's str.isspace for one character (str.split's
// separators): Unicode White_Space plus the information separators
// U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// ExactMatch reports whether the normalised prediction equals a normalised
// gold answer.
func ExactMatch(prediction string, gold []string) bool {
	p := NormalizeAnswer(prediction)
	for _, g := range gold {
		if p == NormalizeAnswer(g) {
			return true
		}
	}
	return false
}

// F1 is the best token F1 of the prediction against the gold answers.
func F1(prediction string, gold []string) float64 {
	p := pySplit(NormalizeAnswer(prediction))
	best := 0.0
	for _, g := range gold {
		if f := tokenF1(p, pySplit(NormalizeAnswer(g))); f > best {
			best = f
		}
	}
	return best
}

// tokenF1 computes F1 over token multisets, in the reference's order of
// floating-point operations.
func tokenF1(pred, gold []string) float64 {
	counts := make(map[string]int, len(gold))
	for _, t := range gold {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := 1.0 * float64(same) / float64(len(pred))
	recall := 1.0 * float64(same) / float64(len(gold))
	return (2 * precision * recall) / (precision + recall)
}

// NormalizeAnswer is SQuAD's normalize_answer: lower-case, remove ASCII
// punctuation, replace the words a, an and the by a space, and collapse
// whitespace.
func NormalizeAnswer(s string) string {
	s = pyLower(s)
	s = strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && strings.ContainsRune(asciiPunctuation, r) {
			return -1
		}
		return r
	}, s)
	s = removeArticles(s)
	return strings.Join(pySplit(s), " ")
}

// asciiPunctuation is Python's string.punctuation.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// removeArticles is re.sub(r"\b(a|an|the)\b", " ", s).
func removeArticles(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(s); {
		if w := articleAt(s, i); w != "" {
			b.WriteString(s[last:i])
			b.WriteByte(' ')
			i += len(w)
			last = i
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	b.WriteString(s[last:])
	return b.String()
}

// articleAt returns the article that the regular expression matches at
// byte offset i, or "".
func articleAt(s string, i int) string {
	if !boundaryAt(s, i) {
		return ""
	}
	for _, w := range [...]string{"a", "an", "the"} {
		if strings.HasPrefix(s[i:], w) && boundaryAt(s, i+len(w)) {
			return w
		}
	}
	return ""
}

// pySplit is Python's str.split() without arguments.
func pySplit(s string) []string {
	return strings.FieldsFunc(s, isPySpace)
}

// pyLower is Python's str.lower(): Unicode lower-casing with the two
// context rules Python applies that Go's strings.ToLower does not: İ
// (U+0130) becomes "i̇", and a capital sigma ending a word becomes ς.
func pyLower(s string) string {
	if !strings.ContainsRune(s, 'İ') && !strings.ContainsRune(s, 'Σ') {
		return strings.ToLower(s)
	}
	runes := []rune(s)
	var b strings.Builder
	for i, r := range runes {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(runes, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition as CPython tests it: a
// cased letter before (skipping case-ignorable characters) and none after.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	k := i + 1
	for k < len(rs) && caseIgnorable(rs[k]) {
		k++
	}
	return k == len(rs) || !cased(rs[k])
}

func cased(r rune) bool { return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) }

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', '\u00b7', '\u2018', '\u2019', '\u2024', '\u2027':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// Percent is round(100 × sum / n, 2) as the reference computes a dataset
// figure: the division is done in float64 and rounded half to even on the
// exact binary value, as Python's round does.
func Percent(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return Round2(100 * sum / float64(n))
}

// Round2 rounds to two decimals exactly as Python's round(x, 2).
func Round2(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	return v
}
