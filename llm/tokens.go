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

// TextKindOf is the kind of text s mostly is.
func TextKindOf(s string) TextKind { return Estimate(s).Kind() }

// Estimate estimates the tokens of s, split by what they come from.
func Estimate(s string) TokenEstimate {
	var e TokenEstimate
	word := 0   // letters of the current Latin word
	spaces := 0 // spaces of the current run
	endWord := func() {
		if word > 0 {
			e.Words += 1 + float64(max(word-wordFree, 0))/wordPer
			word = 0
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == ' ' {
			endWord()
			spaces++
			continue
		}
		if spaces > 0 {
			e.Spaces += spaceCost(spaces, r)
			spaces = 0
		}
		if isLatinLetter(r) {
			word++
			continue
		}
		endWord()
		e.add(r)
	}
	endWord()
	if spaces > 0 {
		e.Spaces += spaceCost(spaces, utf8.RuneError)
	}
	return e
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

// spaceCost is the cost of a run of n spaces before rune next: the first
// space joins the word or punctuation after it, but not a digit (which is
// a piece of its own) nor a line end.
func spaceCost(n int, next rune) float64 {
	extra := float64(n-1) / spacesPer
	if next == utf8.RuneError || next == '\n' || unicode.IsDigit(next) {
		return 1 + extra
	}
	return extra
}

// isLatinLetter: the letters that make words on a Latin-script tokenizer.
func isLatinLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.Is(unicode.Latin, r)
}
