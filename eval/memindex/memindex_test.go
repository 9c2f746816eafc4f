package memindex

import (
	"errors"
	"math"
	"testing"
)

func TestTermsUseTheEnglishAnalyzer(t *testing.T) {
	got := Terms("The Drummers' drums were recorded")
	want := []string{"drummer", "drum", "record"}
	if len(got) != len(want) {
		t.Fatalf("Terms = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Terms = %q, want %q", got, want)
		}
	}
}

func TestSearchScoresTextbookBM25(t *testing.T) {
	docs := []Doc{
		{ID: "a", Title: "Rush", Text: "Rush is a Canadian rock band."},
		{ID: "b", Title: "Neil Peart", Text: "Neil Peart was the drummer of Rush. Rush toured often."},
		{ID: "c", Title: "Toto", Text: "Toto is an American rock band."},
	}
	ix, err := New(docs)
	if err != nil {
		t.Fatal(err)
	}
	// Lengths after analysis: a = rush rush canadian rock band (5);
	// b = neil peart neil peart drummer rush rush tour often (9);
	// c = toto toto american rock band (5). avgdl = 19/3.
	hits := ix.Search("rush drummer", 3)
	if len(hits) != 2 {
		t.Fatalf("got %d hits, want 2 (c has neither term): %+v", len(hits), hits)
	}
	avg := 19.0 / 3
	tfPart := func(tf, dl float64) float64 { return tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/avg)) }
	idf := func(df float64) float64 { return math.Log(1 + (3-df+0.5)/(df+0.5)) }
	wantB := idf(1)*tfPart(1, 9) + idf(2)*tfPart(2, 9)
	wantA := idf(2) * tfPart(2, 5)
	if hits[0].Doc.ID != "b" || math.Abs(hits[0].Score-wantB) > 1e-12 {
		t.Errorf("first hit %s %.12f, want b %.12f", hits[0].Doc.ID, hits[0].Score, wantB)
	}
	if hits[1].Doc.ID != "a" || math.Abs(hits[1].Score-wantA) > 1e-12 {
		t.Errorf("second hit %s %.12f, want a %.12f", hits[1].Doc.ID, hits[1].Score, wantA)
	}
}

func TestSearchBreaksTiesByIDAndHonoursK(t *testing.T) {
	ix, err := New([]Doc{{ID: "z", Text: "alpha"}, {ID: "m", Text: "alpha"}, {ID: "b", Text: "alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	hits := ix.Search("alpha", 2)
	if len(hits) != 2 || hits[0].Doc.ID != "b" || hits[1].Doc.ID != "m" {
		t.Fatalf("hits = %+v, want b then m", hits)
	}
	if got := ix.Search("alpha", 0); got != nil {
		t.Errorf("k=0 gave %v", got)
	}
	if got := ix.Search("the of", 5); len(got) != 0 {
		t.Errorf("a query of stop words gave %v", got)
	}
}

func TestNewRefusesDuplicateIDs(t *testing.T) {
	_, err := New([]Doc{{ID: "x", Text: "one"}, {ID: "x", Text: "two"}})
	if !errors.Is(err, ErrDuplicateID) {
		t.Fatalf("err = %v, want ErrDuplicateID", err)
	}
}
