package llm

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// Token estimates that follow what a text is made of. Runes/4 is right for
// English on the tokenizers of small local models and badly wrong for the
// rest: measured against Ollama 0.34.4 and llama-server on the Phi-3
// tokenizer (SentencePiece, 32k pieces), an English corpus had 0.9 times
// runes/4 tokens, a figure-heavy one 2.24 times (every digit is a token)
// and a Chinese one 5.9 times (a Han character is one piece, or three
// byte pieces when it is not in the vocabulary). The estimate costs each
// run of text by its script:
//
//   - a word of Latin letters: one token up to six letters, then one more
//     for every three;
//   - letters of other alphabets (Cyrillic, Greek, Arabic, …): half a token each;
//   - a digit: one token (the space before a number is one too);
//   - punctuation and symbols: one token each (a space before one is free);
//   - a Han character: one and a half tokens; kana one; a Hangul syllable
//     one and a half; CJK punctuation and full-width forms one;
//   - emoji and other symbols outside the basic plane: two;
//   - a newline or tab: one; a run of spaces between words: free for the
//     first, then a token for every four.
//
// A model whose tokenizer differs (Llama 3 groups digits by three, Qwen
// has most Han characters whole) is corrected by the calibration the
// engine learns from the server's counts, per kind of text (TextKind).

// Per-rune costs of the estimate, in tokens.
const (
	costHan      = 1.5
	costKana     = 1.0
	costHangul   = 1.5
	costCJKPunct = 1.0
	costOther    = 0.5 // a letter of a non-Latin alphabet
	costSymbol   = 2.0 // emoji and symbols outside the basic plane
	wordFree     = 6   // letters of a Latin word within its first token
	wordPer      = 3.0 // letters per further token of a long word
	spacesPer    = 4.0 // spaces per token in a run of spaces
)

// TextKind names the kind of text a prompt mostly is, for the calibration
// kept per kind: a model's tokenizer may count English close to the
// estimate and Chinese far from it.
type TextKind string

const (
	KindProse   TextKind = "prose"   // words of letters
	KindFigures TextKind = "figures" // digits, symbols and punctuation
	KindCJK     TextKind = "cjk"     // Chinese, Japanese, Korean characters
)

// TextKinds lists the kinds, in a fixed order.
var TextKinds = []TextKind{KindProse, KindFigures, KindCJK}

// A text is of kind CJK (or figures) when at least this share of its
// estimated tokens come from CJK characters (or from digits, punctuation
// and symbols); CJK is tried first.
const (
	cjkShare     = 0.25
	figuresShare = 0.35
)

// TokenEstimate is an estimate split by what the tokens come from.
type TokenEstimate struct {
	Words   float64 // letters (words of any alphabet)
	Figures float64 // digits, punctuation, symbols
	CJK     float64 // CJK characters and punctuation
	Spaces  float64 // newlines, tabs and runs of spaces
}

// Tokens is the whole estimate, rounded up.
func (e TokenEstimate) Tokens() int {
	return int(math.Ceil(e.Words + e.Figures + e.CJK + e.Spaces - 1e-9))
}

// Kind is the kind of text the estimate is mostly made of.
func (e TokenEstimate) Kind() TextKind {
	total := e.Words + e.Figures + e.CJK + e.Spaces
	switch {
	case total <= 0:
		return KindProse
	case e.CJK >= cjkShare*total:
		return KindCJK
	case e.Figures >= figuresShare*total:
		return KindFigures
	}
	return KindProse
}

// EstimateTokens estimates the tokens of s on a small model's tokenizer
// (see above).
func EstimateTokens(s string) int { return Estimate(s).Tokens() }

// asciiClass classifies ASCII bytes for Estimate.
var asciiClass = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			t[c] = classLetter
		case c == ' ':
			t[c] = classSpace
		case c == '\n' || c == '\t' || c == '\r':
			t[c] = classLine
		case '0' <= c && c <= '9':
			t[c] = classDigit
		default:
			t[c] = classFigure
		}
	}
	return t
}()

const (
	classFigure byte = iota // punctuation, symbols, controls
	classLetter
	classSpace
	classLine
	classDigit
)

// counter accumulates an estimate in whole numbers, turned into tokens
// once at the end.
type counter struct {
	words, extraLetters int // Latin words, and their letters past wordFree
	word                int // letters of the current word
	spaces, spaceRun    int // whole tokens of spaces, and the current run
	spaceExtras         int // spaces past the first of runs
	figures             int
	rest                TokenEstimate // everything costed rune by rune
}

// Estimate estimates the tokens of s, split by what they come from.
func Estimate(s string) TokenEstimate {
	var c counter
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i = c.asciiRun(s, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		c.endSpaces(r)
		if r >= 0x4E00 && r <= 0x9FFF { // CJK Unified Ideographs, the common case
			c.endWord()
			c.rest.CJK += costHan
			continue
		}
		if unicode.Is(unicode.Latin, r) {
			c.word++
			continue
		}
		c.endWord()
		c.rest.add(r)
	}
	c.endWord()
	c.endSpaces(utf8.RuneError)
	e := c.rest
	e.Words += float64(c.words) + float64(c.extraLetters)/wordPer
	e.Figures += float64(c.figures)
	e.Spaces += float64(c.spaces) + float64(c.spaceExtras)/spacesPer
	return e
}

// asciiRun counts the run of ASCII bytes of s from i and returns where
// it ends. It is the hot loop of the estimate (prompts are mostly ASCII),
// so the counter's state is kept in locals for the run: a letter costs a
// table look-up and an increment. Each byte is counted as endSpaces and
// endWord say (FuzzEstimateMatchesByByte checks them against a byte at a
// time).
func (c *counter) asciiRun(s string, i int) int {
	word, spaceRun := c.word, c.spaceRun
	words, extra, spaces, spaceExtras, figures := c.words, c.extraLetters, c.spaces, c.spaceExtras, c.figures
	for ; i < len(s); i++ {
		b := s[i]
		if b >= utf8.RuneSelf {
			break
		}
		class := asciiClass[b]
		if class == classLetter && spaceRun == 0 {
			word++
			continue
		}
		if class == classSpace {
			if word > 0 {
				words++
				extra += max(word-wordFree, 0)
				word = 0
			}
			spaceRun++
			continue
		}
		if spaceRun > 0 {
			// The first space joins what follows, except a digit or a
			// line end (a tab or a carriage return joins like a word).
			spaceExtras += spaceRun - 1
			if b == '\n' || class == classDigit {
				spaces++
			}
			spaceRun = 0
		}
		if class == classLetter {
			word++
			continue
		}
		if word > 0 {
			words++
			extra += max(word-wordFree, 0)
			word = 0
		}
		if class == classLine {
			spaces++
		} else {
			figures++
		}
	}
	c.word, c.spaceRun = word, spaceRun
	c.words, c.extraLetters, c.spaces, c.spaceExtras, c.figures = words, extra, spaces, spaceExtras, figures
	return i
}

// endWord counts the Latin word just ended.
func (c *counter) endWord() {
	if c.word > 0 {
		c.words++
		c.extraLetters += max(c.word-wordFree, 0)
		c.word = 0
	}
}

// endSpaces counts the run of spaces before rune next: the first space
// joins the word or punctuation after it, but not a digit (which is a
// piece of its own) nor a line end; the others make a token every four.
func (c *counter) endSpaces(next rune) {
	if c.spaceRun == 0 {
		return
	}
	c.spaceExtras += c.spaceRun - 1
	if next == utf8.RuneError || next == '\n' || '0' <= next && next <= '9' || next >= utf8.RuneSelf && unicode.IsDigit(next) {
		c.spaces++
	}
	c.spaceRun = 0
}

// add costs one rune that is not a Latin letter nor a space.
func (e *TokenEstimate) add(r rune) {
	switch {
	case r == '\n' || r == '\t' || r == '\r':
		e.Spaces++
	case unicode.Is(unicode.Han, r):
		e.CJK += costHan
	case unicode.In(r, unicode.Hiragana, unicode.Katakana):
		e.CJK += costKana
	case unicode.Is(unicode.Hangul, r):
		e.CJK += costHangul
	case r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF:
		e.CJK += costCJKPunct
	case unicode.IsLetter(r) || unicode.IsMark(r):
		e.Words += costOther
	case r > 0xFFFF:
		e.Figures += costSymbol
	case unicode.IsSpace(r):
		e.Spaces++
	default: // digits, punctuation, symbols, controls
		e.Figures++
	}
}
