package trajectory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// growWrap word-wraps a paragraph that only ever grows at its end (text
// streaming in). Greedy wrapping never changes a line once a later word has
// been put on the next one, so an update re-wraps from the start of the last
// line only. Whitespace runs collapse to one space.
type growWrap struct {
	width  int
	text   string
	words  []string
	widths []int
	// ends[i] is the byte offset in text just after word i.
	ends []int
	// starts[i] is the index of the first word on line i.
	starts []int
	lines  []string
}

// update wraps text and returns its lines; the slice is reused by the next
// call.
func (g *growWrap) update(text string, width int) []string {
	width = max(width, 8)
	if width != g.width || !strings.HasPrefix(text, g.text) {
		*g = growWrap{width: width}
	}
	if text == g.text && g.text != "" {
		return g.lines
	}
	g.rewrap(g.split(text), width)
	return g.lines
}

// split cuts the new words of text (text extends g.text) into g.words and
// returns how many words of the old text it kept.
func (g *growWrap) split(text string) int {
	// Words before the last one of the old text cannot change; the last one
	// may have grown (a token cut it mid-word).
	keep := len(g.words)
	if keep > 0 && !endsInSpace(g.text) {
		keep--
	}
	g.words, g.widths, g.ends = g.words[:keep], g.widths[:keep], g.ends[:keep]
	offset := 0
	if keep > 0 {
		offset = g.ends[keep-1]
	}
	for offset < len(text) {
		from := skipSpace(text, offset)
		to := skipWord(text, from)
		if to == from {
			break
		}
		g.words = append(g.words, text[from:to])
		g.widths = append(g.widths, ansi.StringWidth(text[from:to]))
		g.ends = append(g.ends, to)
		offset = to
	}
	g.text = text
	return keep
}

// rewrap re-wraps the lines from the last one that starts at or before
// word keep, the first word that may have changed.
func (g *growWrap) rewrap(keep, width int) {
	line := len(g.starts) - 1
	for line > 0 && (g.starts[line] > keep || g.starts[line-1] == g.starts[line]) {
		// Lines holding pieces of one hard-broken word share a start: go
		// back to the first of them.
		line--
	}
	if line < 0 {
		line = 0
	}
	first := 0
	if len(g.starts) > 0 {
		first = g.starts[line]
	}
	g.starts, g.lines = g.starts[:line], g.lines[:line]
	var cur strings.Builder
	curW, start, used := 0, first, false
	flush := func(next int) {
		g.starts = append(g.starts, start)
		g.lines = append(g.lines, cur.String())
		cur.Reset()
		curW, start, used = 0, next, false
	}
	for i := first; i < len(g.words); i++ {
		w, ww := g.words[i], g.widths[i]
		if used && curW+1+ww > width {
			flush(i)
		}
		if ww > width {
			// A word longer than the line is broken hard.
			for _, part := range strings.Split(ansi.Hardwrap(w, width, false), "\n") {
				if used {
					flush(i)
				}
				cur.WriteString(part)
				curW, used = ansi.StringWidth(part), true
			}
			continue
		}
		if used {
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(w)
		curW += ww
		used = true
	}
	if used {
		flush(len(g.words))
	}
}

func endsInSpace(s string) bool {
	if s == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

// skipSpace returns the offset of the first non-space rune at or after i.
func skipSpace(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// skipWord returns the offset of the first space rune at or after i.
func skipWord(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if isASCIISpace(c) {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}
