package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The looks differ in styles only where they should: NO_COLOR ("notty")
// keeps bold and italics but never sets a colour; the colour looks colour
// headings and code.
func TestMarkdownThemes(t *testing.T) {
	md := "## Title\n\nSome **bold**, *italic* and `code` [1].\n\n| a | b |\n|---|---|\n| 1 | 2 |"
	for _, tc := range []struct {
		style      string
		mustHave   []string
		mustNotSee []string
	}{
		{"notty", []string{"\x1b[1mbold", "\x1b[3mitalic", "\x1b[1m## "}, []string{"38;5;", "48;5;"}},
		{"dark", []string{"\x1b[1;38;5;39m## ", "38;5;252;1mbold", "38;5;203;48;5;236m\u00a0code\u00a0"}, nil},
		{"light", []string{"\x1b[1;38;5;27m## ", "38;5;203;48;5;254m"}, nil},
	} {
		out := newMarkdown(tc.style).render(md, 60)
		for _, s := range tc.mustHave {
			if !strings.Contains(out, s) {
				t.Errorf("%s: %q missing from %q", tc.style, s, out)
			}
		}
		for _, s := range tc.mustNotSee {
			if strings.Contains(out, s) {
				t.Errorf("%s: %q in %q", tc.style, s, out)
			}
		}
		if !strings.Contains(ansi.Strip(out), "## Title\n\n  Some bold, italic and") {
			t.Errorf("%s: text lost: %q", tc.style, ansi.Strip(out))
		}
	}
}

// Whatever the model writes, rendering neither panics nor writes a line
// wider than the view.
func FuzzMarkdownRender(f *testing.F) {
	for _, md := range mdSamples {
		f.Add(md, 40)
	}
	f.Add("# \x00<b>x</b>\n\n* [ ] \n\n|a|\n|-|\n|"+strings.Repeat("w", 300)+"|", 12)
	f.Fuzz(func(t *testing.T, md string, width int) {
		width = 1 + abs(width)%200
		for _, style := range []string{"dark", "notty"} {
			out := newMarkdown(style).render(md, width)
			for _, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(l); w > width {
					t.Fatalf("%s: line %q is %d wide (max %d)", style, l, w, width)
				}
			}
		}
	})
}

// TestMarkdownExactFillAddsNoLine: a paragraph that fills its last line
// exactly ends there, and one whose first word wraps alone starts with
// text: no empty line holding only styles is left at either end (with a
// claim marked, such a line showed as an extra blank row).
func TestMarkdownExactFillAddsNoLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		md   string
		mark mdMark
	}{
		{"plain", "-000000000000000000000000000000000", mdMark{}},
		{"marked", "-000000000000000000000000000000000", mdMark{Start: 1, End: 60}},
		{"two lines", "aaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbb\nccc -000000000000000000000000000000000", mdMark{Start: 3, End: 80}},
		{"code span's leading spaces", "`\t" + strings.Repeat("0", 60) + "`", mdMark{Start: 0, End: 80}},
	} {
		for _, style := range []string{"notty", "dark", "light"} {
			m := newMarkdown(style)
			out := m.renderMarked(tc.md, 41, tc.mark).text
			lines := strings.Split(out, "\n")
			if last := lines[len(lines)-1]; strings.TrimSpace(ansi.Strip(last)) == "" {
				t.Errorf("%s/%s: ends in an empty line:\n%q", tc.name, style, out)
			}
			if strings.TrimSpace(ansi.Strip(lines[0])) == "" {
				t.Errorf("%s/%s: starts with an empty line:\n%q", tc.name, style, out)
			}
		}
	}
}
