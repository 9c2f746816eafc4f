package trajectory

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// markdown renders complete Markdown (mdrender.go), once per text, width
// and marked span: the last outputs are kept.
type markdown struct {
	theme mdTheme
	cache map[mdKey]mdOut
}

type mdKey struct {
	width int
	text  string
	mark  mdMark
}

type mdOut struct {
	text string
	// markLine is the line the mark starts on, -1 without.
	markLine int
}

// newMarkdown returns a renderer for a look: "dark", "light" or "notty".
func newMarkdown(style string) *markdown {
	return &markdown{theme: mdThemeFor(style), cache: map[mdKey]mdOut{}}
}

// render returns text rendered for width columns, no line wider than width.
func (m *markdown) render(text string, width int) string {
	return m.renderMarked(text, width, mdMark{}).text
}

// renderMarked renders text with the span mark marked (mdmark.go). The
// span is in bytes of text, which is cleaned for the terminal first
// (termtext.Clean), as the answer of a final event is.
func (m *markdown) renderMarked(text string, width int, mark mdMark) mdOut {
	k := mdKey{width, text, mark}
	if out, ok := m.cache[k]; ok {
		return out
	}
	// Invalid UTF-8 (a model's bytes cut mid-character) is shown as U+FFFD:
	// the width of a line with stray bytes was measured and truncated
	// inconsistently, and could pass the view's width. The span is kept
	// only where the text was valid (the answer of a final event is).
	src := strings.ToValidUTF8(text, "\ufffd")
	if src != text {
		mark = mdMark{}
	}
	lines := strings.Split(strings.Trim(renderMarkdown(m.theme, src, width, mark), "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "")
		}
		lines[i] = l
	}
	// Lines with no text at either end (a code span's leading spaces
	// wrapped alone; with a claim marked they keep the mark's styles) are
	// no lines of the answer.
	for len(lines) > 1 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 1 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	out := mdOut{text: strings.Join(lines, "\n"), markLine: -1}
	if !mark.none() {
		params := m.theme.claim
		if mark.Warn {
			params = m.theme.claimWarn
		}
		out.markLine = markLine(lines, params)
	}
	if len(m.cache) > 16 {
		clear(m.cache)
	}
	m.cache[k] = out
	return out
}

// blank reports whether a rendered line shows nothing.
func blank(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
