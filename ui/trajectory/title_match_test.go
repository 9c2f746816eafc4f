package trajectory

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

// A passage the title heuristics ranked ahead of higher scores says why
// beside its score (the stepper and the live trajectory show this line);
// by words alone and in a hybrid search (where it explains the words rank).
func TestDocMetaSaysTitleMatch(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    sources.Document
		want string
	}{
		{"bm25", sources.Document{Title: "Water", Source: "local:w", Score: 0.894, TitleMatch: sources.TitleInQuery}, "0.89 · ranked ahead: title is in the query"},
		{"hybrid", sources.Document{Title: "Water", Source: "local:w", Score: 0.033, TitleMatch: sources.TitleIsQuery, Ranks: &sources.Ranks{BM25: 1, Vector: 4}},
			"0.03 · words #1, meaning #4 · ranked ahead: title is the query"},
		{"none", sources.Document{Title: "Kettles", Source: "local:w", Score: 1.859}, "1.86"},
	} {
		meta, _ := docMeta(tt.d, 200, 10)
		if !strings.HasSuffix(meta, tt.want) {
			t.Errorf("%s: meta %q, want it to end with %q", tt.name, meta, tt.want)
		}
	}
}
