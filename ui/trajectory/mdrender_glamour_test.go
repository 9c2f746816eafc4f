package trajectory

import (
	"strings"
	"testing"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// glamourPlain renders md as the UI did with glamour (before mdrender.go),
// without its styles: the reference for the layout.
func glamourPlain(t *testing.T, style, md string, width int) string {
	t.Helper()
	opt := glamour.WithStandardStyle(style)
	if style == "notty" {
		on := true
		st := gstyles.NoTTYStyleConfig
		st.Strong = gansi.StylePrimitive{Bold: &on}
		st.Emph = gansi.StylePrimitive{Italic: &on}
		st.Heading.Bold = &on
		opt = glamour.WithStyles(st)
	}
	r, err := glamour.NewTermRenderer(opt, glamour.WithWordWrap(max(width-4, 16)))
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(md)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "")
		}
		lines[i] = l
	}
	return plain(strings.Join(lines, "\n"))
}

// plain strips styles and trailing spaces, and blank lines at both ends.
func plain(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

var mdSamples = map[string]string{
	"paragraphs": "The **Vltava** (German: *Moldau*) flows through Prague, the birthplace of Franz Kafka, author of *The Trial* [1][4].\n\nIt then joins the Elbe at Mělník, north of the city, after a long way across Bohemia [4].",
	"bullets":    "Answer first.\n\n- Kafka was born in Prague in 1883 [1].\n- The Vltava runs through Prague from south to north and is the longest river in the country [4].\n- Third.",
	"numbered":   "Steps:\n\n1. First step with `code` in it.\n2. Second step, a longer one that has to wrap around the end of the line somewhere [2].\n3. Third.",
	"headings":   "# Summary\n\nText under the title.\n\n## Details\n\nMore text here.\n\n### Small\n\nEnd.",
	"softbreaks": "A line\nthat continues\nhere with a hard  \nbreak.",
	"quote":      "Before.\n\n> Quoted text that is long enough to wrap around the end of the line at narrow widths.\n\nAfter.",
	"code":       "Run this:\n\n```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\nDone.",
	"links":      "See [the page](https://example.org/page) and <https://example.com> for more.",
	"entities":   "Tom &amp; Jerry &lt;3 &quot;cartoons&quot; — and “quotes”.",
	"nested":     "- one\n  - one.a\n  - one.b\n- two",
	"strike":     "This is ~~wrong~~ right.",
	"hr":         "Above\n\n---\n\nBelow",
	"table":      "| Name | Born |\n|:-----|-----:|\n| Kafka | 1883 |\n| Brod | 1884 |",
	"tasks":      "- [x] done\n- [ ] todo",
	"image":      "![a map](https://example.org/map.png)",
	"deflist":    "Term\n: Its definition.",
	"loose":      "- first item\n\n  second paragraph of it\n\n- second item",
	"cjk":        "プラハはチェコの首都です。ヴルタヴァ川が流れています。 Emoji 🙂 too [1].",
	"longurl":    "See https://example.org/a/very/long/path/that/does/not/fit/in/a/narrow/view/at/all.html now.",
	"h456":       "#### Four\n\n##### Five\n\n###### Six\n\ntext",
	"ordered5":   "5. five\n6. six",
	"listcode":   "- item\n\n  ```\n  code\n  ```",
	"citations":  "Prague [1], on the Vltava [4][5]; see also [2].",
	"inlinehtml": "Some <b>bold</b> and <span class=\"x\">span</span> text<br>.",
	"htmlblock":  "Before.\n\n<div>\n<p>Inside a block</p>\n</div>\n\nAfter.",
	"comment":    "Text <!-- hidden --> more.",
	"emoji":      "Nice :smile: work\\* and a \\[1\\] escape; www.example.org autolinked.",
	"script":     "<script>alert(1)</script>\n\nText.",
}

// glamourBugs are the samples (and widths) where glamour's layout was
// wrong and ours is not: a loose list item's paragraphs ran together
// ("itemsecond"), and a narrow block quote lost its "│" on a wrapped line.
var glamourBugs = map[string]map[int]string{
	"loose": {
		30:  "  • first item\n  second paragraph of it\n  • second item",
		80:  "  • first item\n  second paragraph of it\n  • second item",
		120: "  • first item\n  second paragraph of it\n  • second item",
	},
	"quote": {30: "  Before.\n\n  │ Quoted text that is\n  │ long enough to wrap\n  │ around the end of\n  │ the line at narrow\n  │ widths.\n\n  After."},
}

// The answer's Markdown is laid out as glamour laid it out (the UI used
// glamour before mdrender.go), apart from glamour's bugs above; glamour is
// linked into this test only, never into the binary (see
// TestBinaryLinksNoHeavyInit in e2e).
func TestMarkdownLayoutMatchesGlamour(t *testing.T) {
	for name, md := range mdSamples {
		for _, style := range []string{"dark", "notty"} {
			for _, w := range []int{30, 80, 120} {
				want := glamourPlain(t, style, md, w)
				if fixed, ok := glamourBugs[name][w]; ok {
					if style == "notty" {
						fixed = strings.ReplaceAll(fixed, "│", "|")
					}
					if want == fixed {
						t.Errorf("%s %s %d: glamour lays it out right now; drop it from glamourBugs", name, style, w)
					}
					want = fixed
				}
				got := plain(newMarkdown(style).render(md, w))
				if got != want {
					t.Errorf("%s %s %d:\n--- want\n%s\n--- ours\n%s", name, style, w, want, got)
				}
			}
		}
	}
}
