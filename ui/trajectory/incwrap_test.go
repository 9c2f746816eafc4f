package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

// plainWrap is the reference: wrap the whole text at once.
func plainWrap(text string, width int) []string {
	var g growWrap
	return append([]string(nil), g.update(text, width)...)
}

func TestGrowWrapMatchesWholeWrap(t *testing.T) {
	texts := []string{
		"The Vltava flows through Prague, the birthplace of Franz Kafka, author of The Trial.",
		strings.Repeat("word ", 60),
		"a supercalifragilisticexpialidociouslylongwordthatdoesnotfit and more words after it",
		"Zürich 東京 Mělník Český Krumlov České Budějovice",
	}
	for _, text := range texts {
		for _, width := range []int{8, 13, 30, 67} {
			var g growWrap
			var got []string
			// Feed it token by token, cutting words in the middle too.
			for _, tok := range scripted.Split(text) {
				for len(tok) > 3 {
					g.update(g.text+tok[:3], width)
					tok = tok[3:]
				}
				got = g.update(g.text+tok, width)
			}
			want := plainWrap(text, width)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("width %d:\n got %q\nwant %q", width, got, want)
			}
			for _, l := range got {
				if ansi.StringWidth(l) > width {
					t.Errorf("line %q wider than %d", l, width)
				}
			}
		}
	}
}

func FuzzGrowWrap(f *testing.F) {
	f.Add("hello world this is a test", 10, 3)
	f.Add("averyveryverylongword short", 8, 5)
	f.Fuzz(func(t *testing.T, text string, width, step int) {
		width = 8 + abs(width)%80
		step = 1 + abs(step)%16
		var g growWrap
		var got []string
		for i := 0; i < len(text); i += step {
			got = g.update(text[:min(i+step, len(text))], width)
		}
		want := plainWrap(text, width)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("incremental %q != whole %q", got, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
