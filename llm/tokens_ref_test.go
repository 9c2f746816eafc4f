package llm

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// estimateByByte is the estimate as first written, one call per byte: the
// reference the fast scan of ASCII runs must match exactly.
func estimateByByte(s string) TokenEstimate {
	var c refCounter
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			i++
			c.ascii(b)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		c.endSpaces(r)
		if r >= 0x4E00 && r <= 0x9FFF {
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

type refCounter struct{ counter }

func (c *refCounter) ascii(b byte) {
	class := asciiClass[b]
	if class == classSpace {
		c.endWord()
		c.spaceRun++
		return
	}
	next := rune(b)
	if class == classLine && b != '\n' {
		next = ' '
	}
	c.endSpaces(next)
	switch class {
	case classLetter:
		c.word++
	case classLine:
		c.endWord()
		c.spaces++
	default:
		c.endWord()
		c.figures++
	}
}

// FuzzEstimateMatchesByByte: the estimate equals the byte-by-byte
// reference on any text.
func FuzzEstimateMatchesByByte(f *testing.F) {
	for _, s := range []string{"", "the cat", "1,234.5 (+3%)", "青石镇的石拱桥", "a  \n\t b", "🙂x", "word   \r\n  42 x\tz  ", "café  9", "  \n", "a \x80 b"} {
		f.Add(s)
	}
	for _, corpus := range []string{"english", "figures", "chinese"} {
		names, texts := fakellm.Corpus(corpus)
		f.Add(texts[names[0]])
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Estimate(s), estimateByByte(s); got != want {
			t.Fatalf("Estimate(%q) = %+v, want %+v", s, got, want)
		}
	})
}
