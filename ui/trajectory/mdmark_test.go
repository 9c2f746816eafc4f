package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// TestMarkdownMark: a span of the source (a claim's sentence) is marked
// in the rendered answer: its text, emphasis and code included, in the
// claim style after a text marker; the sentences around it are not; the
// line it starts on is found; a claim without support has its own style.
func TestMarkdownMark(t *testing.T) {
	md := "It was founded in 1887 by Ada Marsh [1].\nIts library holds **forty thousand** maps, see `atlas` [1]. Its director won the Nobel Prize [2]."
	start := strings.Index(md, "Its library")
	end := strings.Index(md, " Its director")
	for _, style := range []string{"notty", "dark", "light"} {
		m := newMarkdown(style)
		out := m.renderMarked(md, 40, mdMark{Start: start, End: end, Marker: "▸ "})
		plain := ansi.Strip(out.text)
		if !strings.Contains(strings.Join(strings.Fields(plain), " "), "[1]. ▸ Its library holds forty thousand maps, see atlas [1]. Its director") {
			t.Errorf("%s: marker not before the sentence, or text changed:\n%s", style, plain)
		}
		if want := m.theme.claim; !strings.Contains(out.text, ";"+want+"m▸ Its") && !strings.Contains(out.text, "["+want+"m▸ Its") {
			t.Errorf("%s: the sentence's start is not in the claim style %q:\n%q", style, want, out.text)
		}
		for _, in := range []string{"forty", "atlas", "maps"} {
			if !marked(out.text, in, m.theme.claim) {
				t.Errorf("%s: %q inside the claim is not marked:\n%q", style, in, out.text)
			}
		}
		for _, outside := range []string{"It was founded", "Its director"} {
			if marked(out.text, outside, m.theme.claim) {
				t.Errorf("%s: %q is marked but is not the claim:\n%q", style, outside, out.text)
			}
		}
		lines := strings.Split(plain, "\n")
		if l := out.markLine; l < 0 || !strings.Contains(lines[l], "▸") {
			t.Errorf("%s: mark line %d, want the line of the marker:\n%s", style, l, plain)
		}
		warn := m.renderMarked(md, 40, mdMark{Start: end + 1, End: len(md), Warn: true, Marker: "⚠ "})
		if !strings.Contains(ansi.Strip(warn.text), "⚠ Its director") || !marked(warn.text, "Nobel", m.theme.claimWarn) || marked(warn.text, "Nobel", m.theme.claim) {
			t.Errorf("%s: a claim without support is not marked in the warning style:\n%q", style, warn.text)
		}
		if plainOut := m.render(md, 40); strings.Contains(plainOut, "▸") || markLine(strings.Split(plainOut, "\n"), m.theme.claim) >= 0 {
			t.Errorf("%s: marked without a mark:\n%q", style, plainOut)
		}
	}
}

// marked reports whether text is on out in a style whose parameters end
// with params (the last SGR sequence before it).
func marked(out, text, params string) bool {
	i := strings.Index(out, text)
	if i < 0 {
		return false
	}
	j := strings.LastIndex(out[:i], "\x1b[")
	if j < 0 {
		return false
	}
	seq := out[j+2:]
	seq = seq[:strings.IndexByte(seq, 'm')]
	return seq == params || strings.HasSuffix(seq, ";"+params)
}

// Marking a span changes no text: without a marker the output reads as
// the unmarked one (only styles differ), with one the marker shows at
// most once more, and no line is wider than the view.
func FuzzMarkdownMark(f *testing.F) {
	for _, md := range mdSamples {
		f.Add(md, 40, 3, 60)
	}
	f.Add("a \\*b\\* &amp; c&#39;s `x` [l](u) **d**\ne", 30, 4, 20)
	f.Add("x &amp y &ampz \\\\* é", 20, 5, 13)
	// A line ending inside a code span, marked: it was kept as a line
	// break, inside the mark's styles.
	f.Add("000`\n`", 40, -57, 60)
	// Escape bytes: the answer is cleaned before it is rendered.
	f.Add("\x1b 0", 54, -18, 45)
	f.Fuzz(func(t *testing.T, md string, width, start, end int) {
		// Every caller renders the answer as cleaned for the terminal
		// (termtext.Clean): the spans are offsets in that text.
		md = termtext.Clean(md)
		width = 1 + abs(width)%120
		for _, style := range []string{"dark", "notty"} {
			m := newMarkdown(style)
			want := trimLines(ansi.Strip(m.render(md, width)))
			got := m.renderMarked(md, width, mdMark{Start: start, End: end})
			if g := trimLines(ansi.Strip(got.text)); g != want {
				t.Fatalf("%s: marking [%d,%d) changed the text:\n%q\nwant\n%q", style, start, end, g, want)
			}
			withMarker := m.renderMarked(md, width, mdMark{Start: start, End: end, Marker: "▸"}).text
			if n := strings.Count(withMarker, "▸") - strings.Count(want, "▸"); n < 0 || n > 1 {
				t.Fatalf("%s: %d markers more", style, n)
			}
			for _, l := range strings.Split(withMarker, "\n") {
				if w := ansi.StringWidth(l); w > width {
					t.Fatalf("%s: line %q is %d wide (max %d)", style, l, w, width)
				}
			}
		}
	})
}

func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// TestCutAtKeepsClusters: a mark's end never parts a character, a letter
// from its combining accent, an emoji sequence, an escape or an entity.
func TestCutAtKeepsClusters(t *testing.T) {
	for _, tc := range []struct {
		src  string
		i    int
		want int
	}{
		{"ab", 1, 1},
		{"aé", 2, 1},                       // inside the two-byte é
		{"ae\u0301x", 3, 1},                // between e and its accent
		{"ae\u0301x", 4, 4},                // after the accent
		{"a👍🏽b", 5, 1},                     // between an emoji and its skin tone
		{"a\\*b", 2, 1},                    // between a backslash and what it escapes
		{"a&amp;b", 3, 1},                  // inside an entity
		{"\u0635\u0300\u0301\u0302", 4, 0}, // accents stacked on one letter
	} {
		if got := cutAt([]byte(tc.src), 0, len(tc.src), tc.i); got != tc.want {
			t.Errorf("cutAt(%q, %d) = %d, want %d", tc.src, tc.i, got, tc.want)
		}
	}
}
