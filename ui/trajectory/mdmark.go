package trajectory

import (
	stdhtml "html"
	"strings"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// This file marks a span of an answer's Markdown source (a claim's
// sentence) in the rendered text: the text nodes whose source bytes fall in
// the span are styled with the theme's claim style, and a text marker goes
// before the first of them, so the mark shows without colours too. The
// span is in source bytes, so Markdown syntax (emphasis, links, escapes)
// inside or around the sentence is rendered as usual.

// mdMark is a span of the source to mark; the zero value marks nothing.
type mdMark struct {
	// Start and End are byte offsets in the source.
	Start, End int
	// Warn marks a claim without support (the theme's warning style).
	Warn bool
	// Marker is the text put before the span ("▸ ", "⚠ ").
	Marker string
}

func (m mdMark) none() bool { return m.End <= m.Start }

// markState is a mark while one document is rendered.
type markState struct {
	mdMark
	sgr    string
	placed bool
}

// setMark prepares the mark for src: its ends moved onto rune boundaries
// and off escapes and entities, so that cutting a text there leaves each
// piece rendering as the whole did.
func (r *mdRenderer) setMark(m mdMark) {
	if m.none() || m.Start >= len(r.src) || m.End <= 0 {
		r.mark = markState{}
		return
	}
	m.Start, m.End = max(m.Start, 0), min(m.End, len(r.src))
	r.mark = markState{mdMark: m, sgr: r.th.claim}
	if m.Warn {
		r.mark.sgr = r.th.claimWarn
	}
}

// within reports whether source byte i is marked.
func (r *mdRenderer) within(i int) bool {
	m := &r.mark
	return !m.none() && i >= m.Start && i < m.End
}

// text writes the source bytes [start, stop) of a text node styled st, the
// marked part in the claim style.
func (r *mdRenderer) text(b *strings.Builder, start, stop int, st string) {
	m := &r.mark
	if m.none() || stop <= m.Start || start >= m.End {
		b.WriteString(sgr(st, unescapeText(r.src[start:stop])))
		return
	}
	from := cutAt(r.src, start, stop, max(start, m.Start))
	to := max(cutAt(r.src, start, stop, min(stop, m.End)), from)
	if from > start {
		b.WriteString(sgr(st, unescapeText(r.src[start:from])))
	}
	if to > from {
		b.WriteString(sgr(joinSGR(st, m.sgr), r.marker()+unescapeText(r.src[from:to])))
	}
	if stop > to {
		b.WriteString(sgr(st, unescapeText(r.src[to:stop])))
	}
}

// marker is the mark's text marker the first time, then nothing.
func (r *mdRenderer) marker() string {
	if r.mark.placed {
		return ""
	}
	r.mark.placed = true
	return r.mark.Marker
}

// markedCode reports whether a code span has marked bytes, and styles it.
func (r *mdRenderer) markedCode(n *ast.CodeSpan, code, st string) string {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok {
			continue
		}
		for i := t.Segment.Start; i < t.Segment.Stop; i++ {
			if r.within(i) {
				return sgr(joinSGR(st, r.mark.sgr), r.marker()+code)
			}
		}
	}
	return sgr(st, code)
}

// unescapeText is a text node's source as shown: backslash escapes and
// entities resolved.
func unescapeText(src []byte) string {
	return stdhtml.UnescapeString(string(util.UnescapePunctuations(src)))
}

// cutAt moves a cut at byte i of the text src[start:stop] to a place that
// splits no character, grapheme cluster, backslash escape or entity: onto
// the start of the rune, the cluster (a letter and its combining marks, an
// emoji sequence), the escape's backslash or the entity's ampersand. Each
// move only goes left, so they are repeated until none moves the cut.
func cutAt(src []byte, start, stop, i int) int {
	for {
		j := cutAtOnce(src, start, stop, i)
		if j == i {
			return i
		}
		i = j
	}
}

func cutAtOnce(src []byte, start, stop, i int) int {
	for i > start && i < stop && !utf8.RuneStart(src[i]) {
		i--
	}
	if i > start && i < stop {
		// Inside a grapheme cluster: cut before it (a mark's styles
		// between a letter and its accent part them on the screen).
		g := graphemes.FromBytes(src[start:stop])
		for g.Next() {
			if s := start + g.Start(); s >= i {
				break
			} else if i < start+g.End() {
				i = s
				break
			}
		}
	}
	if i > start && i < stop && src[i-1] == '\\' && util.IsPunct(src[i]) {
		// An escaped character: the backslash goes with it (an even run
		// of backslashes escapes itself, which a cut then keeps whole).
		j := i - 1
		for j > start && src[j-1] == '\\' {
			j--
		}
		if (i-j)%2 == 1 {
			i--
		}
	}
	// Inside an entity ("&amp;", "&#39;")? The longest is 32 bytes.
	for j := i - 1; j >= start && j >= i-32; j-- {
		c := src[j]
		if c == '&' {
			if end := entityEnd(src[j:stop]); end > 0 && j+end > i {
				i = j
			}
			break
		}
		if c == ';' || c == ' ' || c == '\n' {
			break
		}
	}
	return i
}

// entityEnd is the length of the character reference s starts with, 0 if
// it starts with none (as html.UnescapeString reads one: a name or number
// ended by ';' or, for a few legacy names, by anything).
func entityEnd(s []byte) int {
	end := 1
	for end < len(s) && end < 33 && (isAlnum(s[end]) || s[end] == '#') {
		end++
	}
	if end == 1 {
		return 0
	}
	if end < len(s) && s[end] == ';' {
		end++
	}
	if stdhtml.UnescapeString(string(s[:end])) == string(s[:end]) {
		return 0
	}
	return end
}

// markLine is the line of lines the mark starts on: the first that turns
// the mark's style on (its SGR parameters end a sequence: the answer's own
// text holds no escape sequence), -1 when none does.
func markLine(lines []string, params string) int {
	if params == "" {
		return -1
	}
	for i, l := range lines {
		for rest := l; ; {
			j := strings.Index(rest, "\x1b[")
			if j < 0 {
				break
			}
			rest = rest[j+2:]
			k := strings.IndexByte(rest, 'm')
			if k < 0 {
				break
			}
			seq := rest[:k]
			if seq == params || strings.HasSuffix(seq, ";"+params) {
				return i
			}
			rest = rest[k+1:]
		}
	}
	return -1
}
