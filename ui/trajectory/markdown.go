package trajectory

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// markdown renders complete Markdown (mdrender.go), once per text and
// width: the last outputs are kept.
type markdown struct {
	theme mdTheme
	cache map[mdKey]string
}

type mdKey struct {
	width int
	text  string
}

// newMarkdown returns a renderer for a look: "dark", "light" or "notty".
func newMarkdown(style string) *markdown {
	return &markdown{theme: mdThemeFor(style), cache: map[mdKey]string{}}
}

// render returns text rendered for width columns, no line wider than width.
func (m *markdown) render(text string, width int) string {
	k := mdKey{width, text}
	if out, ok := m.cache[k]; ok {
		return out
	}
	// Invalid UTF-8 (a model's bytes cut mid-character) is shown as U+FFFD:
	// the width of a line with stray bytes was measured and truncated
	// inconsistently, and could pass the view's width.
	src := strings.ToValidUTF8(text, "\ufffd")
	lines := strings.Split(strings.Trim(renderMarkdown(m.theme, src, width), "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "")
		}
		lines[i] = l
	}
	out := strings.Join(lines, "\n")
	if len(m.cache) > 16 {
		clear(m.cache)
	}
	m.cache[k] = out
	return out
}
