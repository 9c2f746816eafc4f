package textsafe

import (
	"testing"
	"unicode/utf8"
)

func TestElideMiddle(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 5, "ab…ij"},
		{"two\nlines here", 40, "two lines here"},
		{"ééééééé", 4, "é…éé"},
	} {
		got := ElideMiddle(c.in, c.n)
		if got != c.want || utf8.RuneCountInString(got) > c.n {
			t.Errorf("ElideMiddle(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
