package evidence

import "testing"

func TestQuotable(t *testing.T) {
	for s, want := range map[string]bool{
		"# Sihwa Lake": false, "## History": false, "#hashtag is a word here.": true, "Sihwa Lake": false,
		"Early life": false, "| a | b |": false, "---": false, "He died in 1974.": true,
		"He died in 1974": true, "born in 1887 in Copenhagen": true, `He said "Stop."`: true,
	} {
		if got := Quotable(s); got != want {
			t.Errorf("Quotable(%q) = %v, want %v", s, got, want)
		}
	}
}
