package local

import (
	"context"
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

// What is shown is true: a passage the title heuristics put above a higher
// BM25 score says why (TitleMatch), so the order shown follows (title
// match, then score) and the score stays BM25's.
func TestTitleMatchExplainsOrder(t *testing.T) {
	dir, docs := t.TempDir(), t.TempDir()
	writeFiles(t, docs, map[string]string{
		"a.md": "# Water\n\nWater water water boils at one hundred degrees. Water is wet. Water water.\n",
		"b.md": "# Boiling point of water\n\nThe temperature at which a liquid turns to vapour.\n",
		"c.md": "# Kettles\n\nA kettle boils quickly; boils boils boils, at sea level it boils at one hundred degrees.\n",
		"d.md": "# At sea level water\n\nA note.\n",
	})
	mustIndex(t, dir, "t", docs)
	c := mustOpen(t, dir, "t")
	tier := map[string]int{sources.TitleIsQuery: 3, sources.TitleIsQueryFolded: 2, sources.TitleInQuery: 1, "": 0}
	for _, q := range []string{"at sea level water", "At sea level water", "at sea level, when does water boil", "kettles boil"} {
		got, err := c.Search(context.Background(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(got); i++ {
			a, b := got[i-1], got[i]
			ta, tb := tier[a.TitleMatch], tier[b.TitleMatch]
			if ta < tb || (ta == tb && a.Score < b.Score) {
				t.Errorf("%q: %q (%.3f, title %q) above %q (%.3f, title %q): the order shown does not follow", q, a.Title, a.Score, a.TitleMatch, b.Title, b.Score, b.TitleMatch)
			}
		}
		for _, d := range got {
			if want := titleTier(q, strings.ToLower(q), d.Title); tier[d.TitleMatch] != want {
				t.Errorf("%q: %q has TitleMatch %q, want tier %d", q, d.Title, d.TitleMatch, want)
			}
		}
	}
	// Without the heuristics nothing is marked.
	plain, err := OpenWith(dir, "t", Options{IdleRelease: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	got, _ := plain.Search(context.Background(), "at sea level water", 10)
	for _, d := range got {
		if d.TitleMatch != "" {
			t.Errorf("no heuristics: %q marked %q", d.Title, d.TitleMatch)
		}
	}
}
