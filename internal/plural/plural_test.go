package plural

import "testing"

func TestForms(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{N(0, "passage"), "0 passages"},
		{N(1, "passage"), "1 passage"},
		{N(2, "passage"), "2 passages"},
		{Of(1, "corpus", "corpora"), "1 corpus"},
		{Of(3, "corpus", "corpora"), "3 corpora"},
		{N(-1, "step"), "-1 steps"},
		{Noun(1, "file", "files"), "file"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
