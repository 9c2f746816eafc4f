//go:build sqlite_fts5

package retrieval

import (
	"context"
	"reflect"
	"testing"
)

func TestFTS5Rankers(t *testing.T) {
	ds := &Dataset{Name: "tiny", Docs: []Doc{
		// A has "zebra" in its 5-token title+text, B in its shorter 4-token
		// text: with equal column weights B ranks first (shorter document),
		// with the title weighted 2 A does (tf 2 against 1).
		{ID: "A", Title: "zebra", Text: "one two three four"},
		{ID: "B", Text: "zebra five six seven"},
		{ID: "f1", Text: "filler words here"},
		{ID: "f2", Text: "more filler words"},
		{ID: "f3", Text: "yet more words"},
		{ID: "f4", Text: "galloping horses"},
	}}
	b, err := buildFTS5(context.Background(), t.TempDir(), ds, true)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if b.passages != 6 || b.size <= 0 || len(b.rankers) != 2 {
		t.Fatalf("built %+v", b)
	}
	tests := []struct {
		ranker int
		query  string
		want   []string
	}{
		{0, "Zebra?", []string{"B", "A"}},
		{1, "Zebra?", []string{"A", "B"}},
		// Porter stemming: "galloped" matches "galloping".
		{0, "galloped", []string{"f4"}},
		// Query syntax is never interpreted.
		{0, `title:zebra NOT "five`, []string{"B", "A"}},
		{0, "?!", nil},
	}
	for _, tt := range tests {
		got, err := b.rankers[tt.ranker].search(context.Background(), tt.query, 10)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s with %s = %v, want %v", b.rankers[tt.ranker].system, tt.query, got, tt.want)
		}
	}
}
