package local

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

func TestTitleTier(t *testing.T) {
	tests := []struct {
		query, title string
		want         int
	}{
		{"Carsten Olsen", "Carsten Olsen", 3},
		{"carsten olsen ", "Carsten Olsen", 2},
		{"When did Carsten Olsen die?", "Carsten Olsen", 1},
		{"pH of the sea", "pH", 0}, // too short to count as contained
		{"Who was Sørensen?", "S. P. L. Sørensen", 0},
		{"anything", "", 0},
	}
	for _, tt := range tests {
		if got := titleTier(tt.query, strings.ToLower(tt.query), tt.title); got != tt.want {
			t.Errorf("titleTier(%q, %q) = %d, want %d", tt.query, tt.title, got, tt.want)
		}
	}
}

func TestRerankByTitle(t *testing.T) {
	hits := []sources.Document{{ID: "a", Title: "Other"}, {ID: "b", Title: "Olsen"}, {ID: "c", Title: "Carsten Olsen"}, {ID: "d", Title: "More"}}
	got := rerankByTitle("When did Carsten Olsen die?", hits, 3)
	want := []string{"b", "c", "a"} // both contained titles first, in BM25 order
	for i, id := range want {
		if got[i].ID != id {
			t.Fatalf("order %v, want %v", titleIDs(got), want)
		}
	}
	if len(got) != 3 {
		t.Fatalf("kept %d, want 3", len(got))
	}
}

func titleIDs(docs []sources.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}
