package bm25

import (
	"fmt"
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
	// maxDoc 0: map only; 16: dense only; 2: dense for d1, map for d2, d3.
	for _, maxDoc := range []uint64{0, 16, 2} {
		t.Run(fmt.Sprint("maxDoc=", maxDoc), func(t *testing.T) { handComputed(t, c, maxDoc) })
	}
}

func handComputed(t *testing.T, c Collection, maxDoc uint64) {
	acc := NewAccumulator(Default, c, maxDoc)
	defer acc.Release()
	ia, ib := IDF(3, 2), IDF(3, 1)
	acc.Add(1, 2, 4, ia) // term a
	acc.Add(3, 1, 6, ia)
	acc.Add(2, 1, 2, ib) // term b
	names := map[uint64]string{1: "d1", 2: "d2", 3: "d3"}
	hits, err := acc.Top(3, func(d uint64) (string, error) { return names[d], nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id    string
		score float64
	}{{"d2", 1.233042489500456}, {"d1", 0.6462549902128865}, {"d3", 0.39019169220400696}}
	if len(hits) != len(want) {
		t.Fatalf("got %d hits", len(hits))
	}
	for i, w := range want {
		if hits[i].ID != w.id || math.Abs(hits[i].Score-w.score) > 1e-12 {
			t.Errorf("hit %d = %s %.15f, want %s %.15f", i, hits[i].ID, hits[i].Score, w.id, w.score)
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

func TestTopBreaksTiesByID(t *testing.T) {
	for _, maxDoc := range []uint64{0, 10, 4} {
		t.Run(fmt.Sprint("maxDoc=", maxDoc), func(t *testing.T) { topBreaksTies(t, maxDoc) })
	}
}

func topBreaksTies(t *testing.T, maxDoc uint64) {
	c := Collection{N: 10, TotalLength: 100}
	acc := NewAccumulator(Default, c, maxDoc)
	defer acc.Release()
	// Eight documents with the same score, two better ones.
	for d := uint64(0); d < 8; d++ {
		acc.Add(d, 1, 10, 1)
	}
	acc.Add(8, 3, 10, 1)
	acc.Add(9, 2, 10, 1)
	idOf := func(d uint64) (string, error) { return fmt.Sprintf("id%d", 7-d%8+10*(d/8)), nil }
	hits, err := acc.Top(5, idOf)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(func() []string {
		var s []string
		for _, h := range hits {
			s = append(s, h.ID)
		}
		return s
	}())
	// d8 -> id17, d9 -> id16; tied d0..d7 -> id7..id0, ascending: id0 id1 id2.
	if want := "[id17 id16 id0 id1 id2]"; got != want {
		t.Errorf("Top = %s, want %s", got, want)
	}
	if hits, _ := acc.Top(0, idOf); hits != nil {
		t.Errorf("Top(0) = %v", hits)
	}
	if hits, _ := NewAccumulator(Default, c, 16).Top(3, idOf); hits != nil {
		t.Errorf("empty Top = %v", hits)
	}
}

func TestAvgLengthOfEmptyCollection(t *testing.T) {
	if got := (Collection{}).AvgLength(); got != 1 {
		t.Errorf("AvgLength = %v", got)
	}
}
