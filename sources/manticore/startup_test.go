package manticore

import (
	"regexp"
	"strings"
	"testing"
)

// The hand-written checks accept exactly what the regular expressions they
// replaced accepted (those were compiled at every start of the binary).
var (
	identRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	schemeRE = regexp.MustCompile(`^[a-z][a-z0-9+.-]{0,15}$`)
)

var checkSamples = []string{
	"", "a", "_", "9", "a9", "idx_1", "Idx", "a-b", "a.b", "a+b", "http", "https", "svn+ssh",
	"x\n", "é", "a b", strings.Repeat("a", 16), strings.Repeat("a", 17), strings.Repeat("b", 64),
	strings.Repeat("b", 65), "_" + strings.Repeat("9", 63), "A", "mysql", "-a", ".a", "a\x00",
}

func TestChecksMatchRegexps(t *testing.T) {
	for _, s := range checkSamples {
		if got, want := validIdent(s), identRE.MatchString(s); got != want {
			t.Errorf("validIdent(%q) = %v, the regexp said %v", s, got, want)
		}
		if got, want := plainScheme(s), schemeRE.MatchString(s); got != want {
			t.Errorf("plainScheme(%q) = %v, the regexp said %v", s, got, want)
		}
	}
}

func FuzzChecksMatchRegexps(f *testing.F) {
	for _, s := range checkSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validIdent(s), identRE.MatchString(s); got != want {
			t.Fatalf("validIdent(%q) = %v, the regexp said %v", s, got, want)
		}
		if got, want := plainScheme(s), schemeRE.MatchString(s); got != want {
			t.Fatalf("plainScheme(%q) = %v, the regexp said %v", s, got, want)
		}
	})
}
