package ingest

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// words returns n words "w1 w2 ..." starting at start; the last ends with
// end (e.g. "." for a sentence).
func words(start, n int, end string) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", start+i)
	}
	return strings.Join(ws, " ") + end
}

// sentences returns count sentences of size words each.
func sentences(count, size, start int) string {
	var s []string
	for i := 0; i < count; i++ {
		s = append(s, words(start+i*size, size, "."))
	}
	return strings.Join(s, " ")
}

func wordCounts(ps []Passage) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.Words
	}
	return out
}

func TestSplitBoundaries(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []int // words per passage
	}{
		{"short text is one passage", "Just a few words here.", []int{5}},
		{"empty", "  \n\n\t ", nil},
		{"paragraphs join until the minimum", words(0, 60, ".") + "\n\n" + words(60, 60, ".") + "\n\n" + words(120, 60, "."), []int{120, 60}},
		{"a paragraph end at the minimum ends the passage", words(0, 100, ".") + "\n\n" + words(100, 30, "."), []int{100, 30}},
		{"long paragraph cut at the last sentence end", sentences(10, 30, 0), []int{180, 120}},
		{"no sentence ends: cut at the maximum", words(0, 450, ""), []int{200, 200, 50}},
		{"paragraph end preferred to a later sentence end", words(0, 110, ".") + "\n\n" + sentences(3, 30, 110), []int{110, 90}},
		{"short sentences early do not make tiny passages", words(0, 20, ".") + " " + words(20, 230, ""), []int{200, 50}},
		{"windows newlines", words(0, 100, ".") + "\r\n\r\n" + words(100, 5, "."), []int{100, 5}},
		{"blank line with spaces is a paragraph end", words(0, 100, ".") + "\n  \t\n" + words(100, 5, "."), []int{100, 5}},
		{"quotes after the full stop", strings.Repeat(words(0, 29, `."`)+" ", 8), []int{174, 58}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.text, 100, 200)
			if fmt.Sprint(wordCounts(got)) != fmt.Sprint(tt.want) {
				t.Errorf("words per passage = %v, want %v", wordCounts(got), tt.want)
			}
			checkPassages(t, tt.text, got)
		})
	}
}

// checkPassages verifies offsets, word counts and that no word is lost.
func checkPassages(t *testing.T, text string, ps []Passage) {
	t.Helper()
	var all []string
	last := int64(-1)
	for i, p := range ps {
		if p.Offset <= last {
			t.Errorf("passage %d offset %d not after %d", i, p.Offset, last)
		}
		last = p.Offset
		if !strings.HasPrefix(text[p.Offset:], strings.Fields(p.Text)[0]) {
			t.Errorf("passage %d offset %d does not point at its first word %q", i, p.Offset, strings.Fields(p.Text)[0])
		}
		if n := CountWords(p.Text); n != p.Words {
			t.Errorf("passage %d Words = %d, text has %d", i, p.Words, n)
		}
		all = append(all, strings.Fields(p.Text)...)
	}
	if strings.Join(all, " ") != strings.Join(strings.Fields(text), " ") {
		t.Errorf("passages do not hold exactly the words of the text")
	}
}

func TestSplitKeepsParagraphLayout(t *testing.T) {
	got := Split("Title line\n\nFirst paragraph.\nSecond line.", 100, 200)
	if len(got) != 1 || got[0].Text != "Title line\n\nFirst paragraph.\nSecond line." {
		t.Errorf("got %+v", got)
	}
}

func TestSplitStreamsInSmallWrites(t *testing.T) {
	text := sentences(40, 17, 0) + "\n\n" + words(1000, 333, "") + "\n\n" + sentences(5, 9, 2000)
	whole := Split(text, 100, 200)
	var pieces []Passage
	sp := NewSplitter(100, 200, func(p Passage) error { pieces = append(pieces, p); return nil })
	for i := 0; i < len(text); i += 7 {
		end := min(i+7, len(text))
		if _, err := sp.Write([]byte(text[i:end])); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(whole) != fmt.Sprint(pieces) {
		t.Errorf("7-byte writes split differently from one write")
	}
	checkPassages(t, text, whole)
}

func TestSplitGiantWord(t *testing.T) {
	text := "start " + strings.Repeat("é", DefaultMaxBytes) + " end"
	got := Split(text, 100, 200)
	if len(got) < 2 {
		t.Fatalf("got %d passages", len(got))
	}
	total := 0
	for _, p := range got {
		if len(p.Text) > DefaultMaxBytes+8 {
			t.Errorf("passage of %d bytes", len(p.Text))
		}
		if !utf8.ValidString(p.Text) {
			t.Errorf("passage cut inside a rune")
		}
		total += strings.Count(p.Text, "é")
	}
	if total != DefaultMaxBytes {
		t.Errorf("lost runes: %d of %d", total, DefaultMaxBytes)
	}
}

func TestSplitterEmitErrorStops(t *testing.T) {
	boom := fmt.Errorf("boom")
	sp := NewSplitter(1, 2, func(Passage) error { return boom })
	_, err := sp.Write([]byte("a b c d e f"))
	if err != boom {
		t.Errorf("Write error = %v", err)
	}
	if err := sp.Close(); err != boom {
		t.Errorf("Close error = %v", err)
	}
}

func FuzzSplitter(f *testing.F) {
	f.Add("Hello world. This is a test.\n\nNew paragraph!", 2, 5)
	f.Add(sentences(12, 13, 0), 10, 20)
	f.Add("\x00\x1b[31mred\x1b[0m \u202e evil\n\n\n", 1, 1)
	f.Add(strings.Repeat("x", 40000), 3, 4)
	f.Fuzz(func(t *testing.T, text string, minW, maxW int) {
		minW = 1 + abs(minW)%300
		maxW = 1 + abs(maxW)%400
		ps := Split(text, minW, maxW)
		limit := max(minW, maxW)
		last := int64(-1)
		for i, p := range ps {
			if p.Text == "" || p.Words < 1 {
				t.Fatalf("passage %d empty: %+v", i, p)
			}
			if p.Offset <= last || p.Offset >= int64(len(text)) {
				t.Fatalf("passage %d offset %d (previous %d, len %d)", i, p.Offset, last, len(text))
			}
			last = p.Offset
			if p.Words > limit && len(p.Text) < DefaultMaxBytes {
				t.Fatalf("passage %d has %d words, limit %d", i, p.Words, limit)
			}
			if !utf8.ValidString(p.Text) {
				t.Fatalf("passage %d is not valid UTF-8", i)
			}
			for _, r := range p.Text {
				if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
					t.Fatalf("passage %d keeps control character %U", i, r)
				}
			}
		}
		// On clean text no word may be lost or changed.
		if utf8.ValidString(text) && CleanString(text) == text && !strings.ContainsAny(text, "\r\f\v") {
			var got []string
			for _, p := range ps {
				got = append(got, strings.Fields(p.Text)...)
			}
			if strings.Join(got, "") != strings.Join(strings.Fields(text), "") {
				t.Fatalf("words changed")
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}
