package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

// writeFiles creates files (path relative to root -> content) under root.
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustIndex(t testing.TB, dir, name string, paths ...string) Report {
	t.Helper()
	rep, err := Index(context.Background(), dir, name, paths, IndexOptions{})
	if err != nil {
		t.Fatalf("Index: %v", err)
	}
	return rep
}

// mustIndexWith is mustIndex with the writer tuned by wo.
func mustIndexWith(t testing.TB, wo WriterOptions, dir, name string, paths ...string) Report {
	t.Helper()
	rep, err := Index(context.Background(), dir, name, paths, IndexOptions{Writer: wo})
	if err != nil {
		t.Fatalf("Index: %v", err)
	}
	return rep
}

// holdMerges holds Bleve's background merger back, so that every batch
// stays a segment of its own; with SettleSegments -1 nothing settles them.
func holdMerges(wo WriterOptions) WriterOptions {
	wo.IndexConfig = map[string]interface{}{"scorchMergePlanOptions": map[string]interface{}{"MaxSegmentsPerTier": 100000, "FloorSegmentSize": 1, "FloorSegmentFileSize": 1}}
	return wo
}

func mustOpen(t testing.TB, dir, name string) *Corpus {
	t.Helper()
	c, err := Open(dir, name)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ids(docs []sources.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

func TestIndexAndSearchBasic(t *testing.T) {
	src := t.TempDir()
	dir := t.TempDir()
	writeFiles(t, src, map[string]string{
		"notes/tides.md":  "# Ocean tides\n\nTides are caused by the gravitational pull of the moon and the sun.\n",
		"notes/bread.txt": "Sourdough bread rises because wild yeast ferments the dough.\n",
		"wiki.jsonl": `{"id":"w1","title":"Mount Everest","text":"Mount Everest is Earth's highest mountain above sea level.","url":"https://example.org/everest"}
{"id":"w2","title":"K2","text":"K2 is the second-highest mountain on Earth."}
`,
	})
	rep := mustIndex(t, dir, "default", src)
	if rep.Files != 3 || rep.Indexed != 3 || len(rep.Failed) != 0 {
		t.Fatalf("report = %+v", rep)
	}
	if rep.Passages != 4 || rep.Documents != 4 {
		t.Errorf("passages %d documents %d, want 4 and 4", rep.Passages, rep.Documents)
	}
	c := mustOpen(t, dir, "default")
	if c.Name() != "local:default" || c.Kind() != sources.KindLocal {
		t.Errorf("Name %q Kind %v", c.Name(), c.Kind())
	}
	tests := []struct {
		query string
		first string
	}{
		{"What causes the tides?", filepath.Join(src, "notes/tides.md") + "#1"},
		{"highest mountain above sea level", "w1"},
		{"yeast: +bread -rises?", filepath.Join(src, "notes/bread.txt") + "#1"},
	}
	for _, tt := range tests {
		docs, err := c.Search(context.Background(), tt.query, 5)
		if err != nil {
			t.Fatalf("Search(%q): %v", tt.query, err)
		}
		if len(docs) == 0 || docs[0].ID != tt.first {
			t.Errorf("Search(%q) = %v, want first %s", tt.query, ids(docs), tt.first)
			continue
		}
		if docs[0].Source != "local:default" || docs[0].Score <= 0 {
			t.Errorf("Search(%q) doc = %+v", tt.query, docs[0])
		}
	}
	docs, _ := c.Search(context.Background(), "Everest", 1)
	want := sources.Document{ID: "w1", Title: "Mount Everest", Text: "Mount Everest is Earth's highest mountain above sea level.",
		URL: "https://example.org/everest", Source: "local:default", Locator: "w1"}
	if len(docs) != 1 {
		t.Fatalf("got %d docs", len(docs))
	}
	docs[0].Score = 0
	if docs[0] != want {
		t.Errorf("doc = %+v\nwant %+v", docs[0], want)
	}
	docs, _ = c.Search(context.Background(), "tides", 1)
	if len(docs) != 1 || docs[0].Title != "Ocean tides" || docs[0].Locator != filepath.Join(src, "notes/tides.md")+"#0" {
		t.Errorf("md doc = %+v", docs)
	}
	st, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 4 || st.Passages != 4 || st.SizeBytes <= 0 || st.Updated.IsZero() {
		t.Errorf("stats = %+v", st)
	}
}

func TestSearchEdgeQueries(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "Alpha beta gamma."})
	mustIndex(t, dir, "c", src)
	c := mustOpen(t, dir, "c")
	for _, q := range []string{"", "   ", "the of and", "?", "+", "-", ":", `"`, "title: alpha", "*", "a~2"} {
		docs, err := c.Search(context.Background(), q, 5)
		if err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
		if q == "title: alpha" {
			if len(docs) != 1 {
				t.Errorf("Search(%q) = %v, want the alpha passage (plain words)", q, ids(docs))
			}
			continue
		}
		if len(docs) != 0 {
			t.Errorf("Search(%q) = %v, want nothing", q, ids(docs))
		}
	}
	if docs, _ := c.Search(context.Background(), "alpha", 0); docs != nil {
		t.Errorf("k=0 returned %v", docs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Search(ctx, "alpha", 5); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search error = %v", err)
	}
}

func TestQuerySyntaxIsIgnored(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	var lines []string
	for i := 0; i < 30; i++ {
		lines = append(lines, fmt.Sprintf(`{"id":"d%02d","title":"T%d","text":"river %s delta %s boat"}`, i, i, strings.Repeat("water ", i%5), strings.Repeat("mud ", i%3)))
	}
	writeFiles(t, src, map[string]string{"x.jsonl": strings.Join(lines, "\n")})
	mustIndex(t, dir, "q", src)
	c := mustOpen(t, dir, "q")
	base, err := c.Search(context.Background(), "river water mud", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"river? water: mud!", "+river -water mud", "river AND water OR mud", `"river water" mud~`, "river^5 water mud*"} {
		got, err := c.Search(context.Background(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(ids(got)) != fmt.Sprint(ids(base)) {
			t.Errorf("Search(%q) = %v, want %v", q, ids(got), ids(base))
		}
	}
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"default", true}, {"my-corpus_2.v1", true}, {"A", true},
		{"", false}, {"..", false}, {".hidden", false}, {"a/b", false}, {`a\b`, false},
		{"a..b", false}, {"-x", false}, {"sp ace", false}, {strings.Repeat("x", 65), false}, {"é", false},
	}
	for _, tt := range tests {
		err := ValidateName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidName) {
			t.Errorf("ValidateName(%q) error %v is not ErrInvalidName", tt.name, err)
		}
	}
	if _, err := Open(t.TempDir(), "../x"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Open(../x) = %v", err)
	}
	if _, err := Index(context.Background(), t.TempDir(), "a/b", nil, IndexOptions{}); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Index(a/b) = %v", err)
	}
}
