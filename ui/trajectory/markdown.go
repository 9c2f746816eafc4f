package trajectory

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders complete Markdown with glamour, once per text and width:
// a renderer per width is built lazily and the last output is kept.
type markdown struct {
	style     string
	renderers map[int]*glamour.TermRenderer
	cache     map[mdKey]string
}

type mdKey struct {
	width int
	text  string
}

func newMarkdown(style string) *markdown {
	return &markdown{style: style, renderers: map[int]*glamour.TermRenderer{}, cache: map[mdKey]string{}}
}

// render returns text rendered for width columns. If glamour fails the text
// comes back wrapped plain: an answer is never lost to a rendering error.
func (m *markdown) render(text string, width int) string {
	k := mdKey{width, text}
	if out, ok := m.cache[k]; ok {
		return out
	}
	out, err := m.glamour(text, width)
	if err != nil {
		out = strings.Join(wrap(text, width), "\n")
	}
	if len(m.cache) > 16 {
		clear(m.cache)
	}
	m.cache[k] = out
	return out
}

func (m *markdown) glamour(text string, width int) (string, error) {
	r, ok := m.renderers[width]
	if !ok {
		style := glamour.WithStandardStyle(m.style)
		if m.style == "notty" {
			style = glamour.WithStyles(noColorStyle())
		}
		var err error
		r, err = glamour.NewTermRenderer(style, glamour.WithWordWrap(max(width-4, 16)))
		if err != nil {
			return "", err
		}
		m.renderers[width] = r
	}
	out, err := r.Render(text)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "")
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n"), nil
}

// noColorStyle is glamour's no-TTY style with text attributes instead of
// Markdown markers: NO_COLOR forbids colour, not bold or italics.
func noColorStyle() gansi.StyleConfig {
	on := true
	st := gstyles.NoTTYStyleConfig
	st.Strong = gansi.StylePrimitive{Bold: &on}
	st.Emph = gansi.StylePrimitive{Italic: &on}
	st.Heading.Bold = &on
	return st
}
