package sources

import (
	"encoding/json"
	"testing"
)

func TestFuse(t *testing.T) {
	docs := func(ids ...string) []Document {
		out := make([]Document, len(ids))
		for i, id := range ids {
			out[i] = Document{ID: id}
		}
		return out
	}
	tests := []struct {
		name        string
		bm25, dense []Document
		w           Weights
		k           int
		want        []string
		wantRanks   []Ranks
	}{
		{"both legs agree first", docs("a", "b"), docs("a", "c"), DefaultWeights, 3, []string{"a", "b", "c"},
			[]Ranks{{1, 1}, {2, 0}, {0, 2}}},
		{"found by meaning only", nil, docs("car"), DefaultWeights, 5, []string{"car"}, []Ranks{{0, 1}}},
		{"a weighted vector leg leads", docs("a", "b"), docs("b", "a"), Weights{BM25: 1, Vector: 2}, 5, []string{"b", "a"},
			[]Ranks{{2, 1}, {1, 2}}},
		{"ties keep the BM25 order", docs("a", "b"), docs("b", "a"), DefaultWeights, 5, []string{"a", "b"},
			[]Ranks{{1, 2}, {2, 1}}},
		{"cut to k", docs("a", "b", "c"), nil, DefaultWeights, 2, []string{"a", "b"}, []Ranks{{1, 0}, {2, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Fuse(tc.bm25, tc.dense, tc.k, tc.w)
			if len(got) != len(tc.want) {
				t.Fatalf("%d documents, want %v", len(got), tc.want)
			}
			for i, d := range got {
				if d.ID != tc.want[i] || *d.Ranks != tc.wantRanks[i] {
					t.Errorf("%d: %s %+v, want %s %+v", i, d.ID, *d.Ranks, tc.want[i], tc.wantRanks[i])
				}
				if i > 0 && d.Score > got[i-1].Score {
					t.Errorf("scores out of order")
				}
			}
		})
	}
}

func TestDocumentRanksJSON(t *testing.T) {
	plain, _ := json.Marshal(Document{ID: "a", Source: "local:x"})
	if want := `{"id":"a","title":"","text":"","source":"local:x","score":0}`; string(plain) != want {
		t.Errorf("a BM25 document: %s, want %s", plain, want)
	}
	ranked, _ := json.Marshal(Document{ID: "a", Ranks: &Ranks{Vector: 3}})
	if want := `{"id":"a","title":"","text":"","source":"","score":0,"bm25_rank":null,"vector_rank":3}`; string(ranked) != want {
		t.Errorf("a hybrid document: %s, want %s", ranked, want)
	}
	for _, raw := range []string{string(plain), string(ranked)} {
		var d Document
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			t.Fatal(err)
		}
		back, _ := json.Marshal(d)
		if string(back) != raw {
			t.Errorf("%s read back as %s", raw, back)
		}
	}
}
