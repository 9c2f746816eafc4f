package termtext

import "testing"

func TestTruncateAndPad(t *testing.T) {
	for _, tt := range []struct {
		in            string
		width         int
		truncate, pad string
	}{
		{"hello", 10, "hello", "hello     "},
		{"hello world", 5, "hell…", "hello world"},
		{"héllo", 0, "", "héllo"},
		{"\x1b[1mbold\x1b[0m", 6, "\x1b[1mbold\x1b[0m", "\x1b[1mbold\x1b[0m  "},
		{"日本語", 4, "日…", "日本語"},
	} {
		if got := Truncate(tt.in, tt.width); got != tt.truncate {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.truncate)
		}
		if got := Pad(tt.in, tt.width); got != tt.pad {
			t.Errorf("Pad(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.pad)
		}
	}
}
