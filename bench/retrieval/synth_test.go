package retrieval

import (
	"reflect"
	"strings"
	"testing"
)

func TestSynthesize(t *testing.T) {
	src := []Doc{
		{ID: "1", Title: "Alpha", Text: "alpha beta gamma delta"},
		{ID: "2", Text: "epsilon zeta eta theta iota kappa"},
		{ID: "3", Title: "Empty", Text: "   "},
	}
	vocab := map[string]bool{}
	for _, d := range src {
		for _, w := range strings.Fields(d.Text) {
			vocab[w] = true
		}
	}
	got := Synthesize(src, 50, 7)
	if len(got) != 50 {
		t.Fatalf("%d passages, want 50", len(got))
	}
	ids := map[string]bool{}
	for _, d := range got {
		words := strings.Fields(d.Text)
		if len(words) < synthMinWords || len(words) > synthMaxWords {
			t.Errorf("%s has %d words, want %d–%d", d.ID, len(words), synthMinWords, synthMaxWords)
		}
		for _, w := range words {
			if !vocab[w] {
				t.Fatalf("%s holds %q, not a word of the sources", d.ID, w)
			}
		}
		if d.Title != "" && d.Title != "Alpha" {
			t.Errorf("%s title %q", d.ID, d.Title)
		}
		if ids[d.ID] {
			t.Errorf("duplicate id %s", d.ID)
		}
		ids[d.ID] = true
	}
	if again := Synthesize(src, 50, 7); !reflect.DeepEqual(again, got) {
		t.Error("the same seed gave different passages")
	}
	if other := Synthesize(src, 50, 8); reflect.DeepEqual(other, got) {
		t.Error("another seed gave the same passages")
	}
	if Synthesize([]Doc{{ID: "x", Text: " "}}, 10, 1) != nil {
		t.Error("passages made of nothing")
	}
}
