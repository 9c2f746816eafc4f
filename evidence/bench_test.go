package evidence

import (
	"strings"
	"testing"
)

// benchPassages are ten passages of about five sentences each, the size of
// a HotpotQA question's context.
func benchPassages() []Passage {
	base := []string{
		"Jeffrey Thomas Porcaro (April 1, 1954 – August 5, 1992) was an American drummer, songwriter, and record producer.",
		"In a career that spanned more than 20 years, Porcaro was best known for his work with the rock band Toto.",
		"Porcaro is one of the most recorded session musicians in history, working on hundreds of albums and thousands of sessions.",
		"While already an established studio player in the 1970s, he came to prominence in the U.S. as the drummer on the Steely Dan album \"Katy Lied\".",
		"He was posthumously inducted into the \"Modern Drummer\" Hall of Fame in 1993.",
	}
	var ps []Passage
	for i := 0; i < 10; i++ {
		var b strings.Builder
		for j, s := range base {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.ReplaceAll(s, "Porcaro", "Porcaro"+string(rune('A'+i))))
		}
		ps = append(ps, Passage{N: i + 1, Title: "Jeff Porcaro" + string(rune('A'+i)), Text: b.String()})
	}
	return ps
}

const benchClaim = "Which American drummer, known for his work with Toto, was inducted into the Modern Drummer Hall of Fame in 1993? Jeff Porcaro"

// BenchmarkAlignClaim is one claim citing two passages against an aligner
// already built.
func BenchmarkAlignClaim(b *testing.B) {
	a := NewAligner(benchPassages(), Options{})
	c := Claim{Text: benchClaim, Citations: []int{1, 2}}
	b.ReportAllocs()
	for b.Loop() {
		a.AlignClaim(c)
	}
}

// BenchmarkAlignFresh indexes the ten passages and aligns one claim: the
// cost of a one-claim answer.
func BenchmarkAlignFresh(b *testing.B) {
	ps := benchPassages()
	c := Claim{Text: benchClaim, Citations: []int{1, 2}}
	b.ReportAllocs()
	for b.Loop() {
		NewAligner(ps, Options{}).AlignClaim(c)
	}
}
