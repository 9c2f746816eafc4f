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

func TestThousands(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Thousands(0), "0"},
		{Thousands(999), "999"},
		{Thousands(1000), "1,000"},
		{Thousands(12345), "12,345"},
		{Thousands(-1234567), "-1,234,567"},
		{Thousands(int64(-9223372036854775808)), "-9,223,372,036,854,775,808"},
		{Thousands(uint64(18446744073709551615)), "18,446,744,073,709,551,615"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
