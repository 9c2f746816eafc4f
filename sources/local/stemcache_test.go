package local

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
)

// TestStemCacheMatchesAnalyzer: the workers' analyser with its stem cache
// gives the tokens of Bleve's en analyser, byte for byte, hit or miss, and
// after the cache starts over.
func TestStemCacheMatchesAnalyzer(t *testing.T) {
	base := lookupAnalyzers(newMapping()).en
	if _, ok := withStemCache(base).(*analysis.DefaultAnalyzer); !ok || withStemCache(base) == base {
		t.Fatal("the en analyser has no Porter stemmer to cache")
	}
	texts := []string{
		"The runner's running runs ran; RUNNING Runners' generalizations.",
		"Ünïcödé naïve café résumé façade — 東京 日本語 テキスト 1999 3.14 e-mail x-ray",
		"caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti",
	}
	rng := rand.New(rand.NewSource(3))
	if data := sharedText(); data != "" {
		texts = append(texts, data)
	}
	words := strings.Fields(strings.Join(texts, " "))
	for i := 0; i < 300; i++ {
		var sb strings.Builder
		for j := 0; j < 80; j++ {
			sb.WriteString(words[rng.Intn(len(words))])
			sb.WriteByte(' ')
		}
		texts = append(texts, sb.String())
	}
	for _, size := range []int{1 << 17, 7} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			defer func(n int) { stemCacheSize = n }(stemCacheSize)
			stemCacheSize = size
			cached := withStemCache(base)
			for round := 0; round < 2; round++ {
				for _, text := range texts {
					want, got := base.Analyze([]byte(text)), cached.Analyze([]byte(text))
					if a, b := tokens(want), tokens(got); a != b {
						t.Fatalf("round %d, %q:\nen     %s\ncached %s", round, text, a, b)
					}
				}
			}
		})
	}
}

func tokens(ts analysis.TokenStream) string {
	var sb strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&sb, "%q %d-%d @%d %d %v|", t.Term, t.Start, t.End, t.Position, t.Type, t.KeyWord)
	}
	return sb.String()
}

// sharedText is some real text from ../shared/data when it is there.
func sharedText() string {
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "shared", "data", "multihop", "migres-dev200", "hotpot.json"))
		if err == nil {
			return string(b[:min(len(b), 200_000)])
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
