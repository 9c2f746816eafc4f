package llm

import (
	"fmt"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// TestEstimateTokensPerScript: the estimate is within 15% of the count of
// a tokenizer that reads English, figure-heavy and Chinese text as the
// measured servers did (the fake's, at 0.9, 2.24 and 5.9 times runes/4),
// on each corpus as a whole and on every document. `go test -v` prints
// the table of errors.
func TestEstimateTokensPerScript(t *testing.T) {
	for _, tc := range []struct {
		corpus string
		kind   TextKind
	}{{"english", KindProse}, {"figures", KindFigures}, {"chinese", KindCJK}} {
		names, texts := fakellm.Corpus(tc.corpus)
		runes, server, est, worst := 0, 0, 0, 0.0
		for _, n := range names {
			text := texts[n]
			s, e := fakellm.ScriptTokens(text), EstimateTokens(text)
			runes += utf8.RuneCountInString(text)
			server += s
			est += e
			worst = max(worst, math.Abs(float64(e-s))/float64(s))
			if k := Estimate(text).Kind(); k != tc.kind {
				t.Errorf("%s/%s is %s, want %s", tc.corpus, n, k, tc.kind)
			}
		}
		r4 := float64(runes) / 4
		errPct := 100 * float64(est-server) / float64(server)
		t.Logf("%-8s runes %5d  server %5d (%.2f× runes/4)  estimate %5d (%.2f×)  error %+.1f%% (runes/4: %+.1f%%)  worst document %.1f%%",
			tc.corpus, runes, server, float64(server)/r4, est, float64(est)/r4, errPct, 100*(r4-float64(server))/float64(server), 100*worst)
		if math.Abs(errPct) > 15 || worst > 0.15 {
			t.Errorf("%s: estimate off by %.1f%% (worst document %.1f%%)", tc.corpus, errPct, 100*worst)
		}
	}
}

// TestEstimateTokensRules pins the costs of each kind of text.
func TestEstimateTokensRules(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
		kind TextKind
	}{
		{"", 0, KindProse},
		{"the cat sat", 3, KindProse},
		{"internationalisation", 6, KindProse}, // 20 letters: 1 + 14/3
		{"in 2019", 6, KindFigures},            // in, ▁, 2, 0, 1, 9
		{"1,234.5", 7, KindFigures},
		{"青石镇", 5, KindCJK}, // 4.5 rounded up
		{"ひらがな", 4, KindCJK},
		{"，。", 2, KindCJK},
		{"привет", 3, KindProse},
		{"a\nb", 3, KindProse},
		{"a        b", 4, KindProse}, // 8 spaces: 7/4 for all but the last
		{"🙂", 2, KindFigures},
	} {
		e := Estimate(tc.text)
		if got := e.Tokens(); got != tc.want || e.Kind() != tc.kind {
			t.Errorf("Estimate(%q) = %d %s, want %d %s", tc.text, got, e.Kind(), tc.want, tc.kind)
		}
	}
}

// FuzzEstimateTokens: any text is estimated without panic, at no more
// than four tokens a byte plus one, and a text's estimate never exceeds
// the sum of its halves' by more than the two tokens a split can save.
func FuzzEstimateTokens(f *testing.F) {
	for _, s := range []string{"", "the cat", "1,234.5 (+3%)", "青石镇的石拱桥", "a  \n\t b", "🙂x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := EstimateTokens(s)
		if n < 0 || n > 4*len(s)+1 {
			t.Fatalf("EstimateTokens(%q) = %d", s, n)
		}
		_ = Estimate(s).Kind()
		if i := len(s) / 2; len(s) > 0 && utf8.ValidString(s) && utf8.RuneStart(s[i]) {
			if a, b := EstimateTokens(s[:i]), EstimateTokens(s[i:]); n > a+b+2 {
				t.Fatalf("%q: %d > %d + %d", s, n, a, b)
			}
		}
	})
}

func ExampleEstimateTokens() {
	fmt.Println(EstimateTokens("The river rose 1.9 m in 5 days."), EstimateTokens("河水五天上涨了一点九米。"))
	// Output: 13 18
}

// BenchmarkEstimate: the estimate of English, figure-heavy and Chinese
// text, reported in bytes per second.
func BenchmarkEstimate(b *testing.B) {
	for _, corpus := range []string{"english", "figures", "chinese"} {
		names, texts := fakellm.Corpus(corpus)
		var all string
		for _, n := range names {
			all += texts[n]
		}
		b.Run(corpus, func(b *testing.B) {
			b.SetBytes(int64(len(all)))
			for b.Loop() {
				EstimateTokens(all)
			}
		})
	}
}
