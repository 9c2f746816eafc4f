package bm25

import (
	"math"
	"testing"
)

// The tiny collection worked by hand:
//
//	d1: 4 tokens, "a" twice   d2: 2 tokens, "b" once   d3: 6 tokens, "a" once
//	N = 3, avgdl = 12/3 = 4, df(a) = 2, df(b) = 1
//	idf(a) = ln(1 + 1.5/2.5) = ln 1.6      = 0.470003629...
//	idf(b) = ln(1 + 2.5/1.5) = ln 8/3      = 0.980829253...
//	d1: idf(a) · 2·2.2 / (2 + 1.2·(0.25 + 0.75·4/4)) = idf(a) · 4.4/3.2  = 0.646254990...
//	d2: idf(b) · 2.2 / (1 + 1.2·(0.25 + 0.75·2/4))   = idf(b) · 2.2/1.75 = 1.233042489...
//	d3: idf(a) · 2.2 / (1 + 1.2·(0.25 + 0.75·6/4))   = idf(a) · 2.2/2.65 = 0.390191692...
func TestHandComputedCollection(t *testing.T) {
	c := Collection{N: 3, TotalLength: 12}
	if got := IDF(3, 2); math.Abs(got-math.Log(1.6)) > 1e-15 {
		t.Errorf("IDF(3,2) = %v, want ln 1.6", got)
	}
	if got := IDF(3, 1); math.Abs(got-math.Log(8.0/3)) > 1e-15 {
		t.Errorf("IDF(3,1) = %v, want ln 8/3", got)
	}
	// Each document's score is its terms' weight · idf · TermScore, as the
	// search sums them.
	avg := c.AvgLength()
	ia, ib := IDF(3, 2), IDF(3, 1)
	got := map[string]float64{
		"d1": ia * Default.TermScore(2, 4, avg),
		"d2": ib * Default.TermScore(1, 2, avg),
		"d3": ia * Default.TermScore(1, 6, avg),
	}
	for id, want := range map[string]float64{"d2": 1.233042489500456, "d1": 0.6462549902128865, "d3": 0.39019169220400696} {
		if math.Abs(got[id]-want) > 1e-12 {
			t.Errorf("%s = %.15f, want %.15f", id, got[id], want)
		}
	}
}

func TestTermScore(t *testing.T) {
	tests := []struct {
		name      string
		p         Params
		tf, dl    uint64
		avg, want float64
	}{
		{"average length", Default, 1, 10, 10, 1}, // 2.2/2.2
		{"b=0 ignores length", Params{K1: 1.2, B: 0}, 3, 1000, 10, 3 * 2.2 / 4.2},
		{"k1=0 is binary", Params{K1: 0, B: 0.75}, 7, 5, 10, 1},
		{"long document", Default, 1, 30, 10, 2.2 / (1 + 1.2*(0.25+2.25))},
	}
	for _, tt := range tests {
		if got := tt.p.TermScore(tt.tf, tt.dl, tt.avg); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: TermScore = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAvgLengthOfEmptyCollection(t *testing.T) {
	if got := (Collection{}).AvgLength(); got != 1 {
		t.Errorf("AvgLength = %v", got)
	}
}
