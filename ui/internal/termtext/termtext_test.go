package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain ascii is unchanged", "Hello, world.\nSecond line", "Hello, world.\nSecond line"},
		{"unicode is kept", "Zürich — 東京", "Zürich — 東京"},
		{"csi colour removed", "\x1b[31mred\x1b[0m text", "red text"},
		{"osc title removed", "a\x1b]0;pwned\x07b", "ab"},
		{"osc hyperlink removed", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"cursor movement removed", "x\x1b[2J\x1b[Hy", "xy"},
		{"bell and backspace removed", "a\a\bb", "ab"},
		{"crlf becomes lf, lone cr dropped", "a\r\nb\rc", "a\nbc"},
		{"tab becomes spaces", "a\tb", "a    b"},
		{"c1 csi removed with its parameters", "a\u009b31mb", "ab"},
		{"bidi override removed", "abc\u202edcba", "abcdcba"},
		{"invalid utf8 replaced", "a\xffb", "a\uFFFDb"},
		{"delete removed", "a\x7fb", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  two\nlines  ", "two lines"},
		{"tab\there", "tab here"},
		{"\x1b[1mbold\x1b[0m\r\n title", "bold title"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Line(tt.in); got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b[31mred", "\x1b]0;t\x07", "a\u009bb", "\xff\xfe", "a\r\nb\tc",
		"\x1bP1;2q\x1b\\", "\u202e\u2066x", strings.Repeat("\x1b[", 50),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Clean(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", in, out)
		}
		for _, r := range out {
			if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e)) {
				t.Fatalf("unsafe rune %U left in %q (from %q)", r, out, in)
			}
		}
		if Clean(out) != out {
			t.Fatalf("Clean is not idempotent on %q", in)
		}
		line := Line(in)
		if strings.ContainsAny(line, "\n\r\t") {
			t.Fatalf("Line left a line break in %q", line)
		}
	})
}
