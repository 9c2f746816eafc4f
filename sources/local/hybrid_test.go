package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local/vector"
)

// conceptEmbedder embeds with the fake server's model (synonyms close), in
// process, counting what it embeds; failAfter > 0 cancels the run once
// that many texts were embedded (a run cut short).
type conceptEmbedder struct {
	model     string
	dims      int
	mu        sync.Mutex
	texts     int
	calls     int
	failAfter int
	cancel    context.CancelFunc
}

func (e *conceptEmbedder) Embed(ctx context.Context, texts []string, done func(int)) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failAfter > 0 && e.texts >= e.failAfter {
		e.cancel()
		return nil, ctx.Err()
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakellm.Embed(t, e.dims)
	}
	e.texts += len(texts)
	e.calls++
	if done != nil {
		done(len(texts))
	}
	return out, nil
}

func (e *conceptEmbedder) Model() string  { return e.model }
func (e *conceptEmbedder) Server() string { return "ollama" }
func (e *conceptEmbedder) embedded() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts
}

var meaningFiles = map[string]string{
	"garage.md":  "# Car repair\n\nReplacing worn brake pads and changing the oil keep a car safe on the road.",
	"bakery.md":  "# Bread\n\nA sourdough loaf needs flour, water, salt and a starter fed the day before.",
	"harbour.md": "# Harbour\n\nFishing boats unload their catch at dawn beside the lighthouse.",
}

func searchWith(t *testing.T, dir, mode string, e Embedder, query string) []sources.Document {
	t.Helper()
	opts := DefaultOptions()
	opts.Retrieval, opts.Embedder = mode, e
	c, err := OpenWith(dir, "notes", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	docs, err := c.Search(context.Background(), query, 3)
	if err != nil {
		t.Fatalf("%s search: %v", mode, err)
	}
	return docs
}

func TestHybridFindsByMeaning(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	writeFiles(t, src, meaningFiles)
	e := &conceptEmbedder{model: "nomic-embed-text", dims: 64}
	rep, err := Index(context.Background(), dir, "notes", []string{src}, IndexOptions{Embed: e})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Vectors; v == nil || v.Embedded != 3 || v.Vectors != 3 || !v.Complete || v.Dims != 64 || v.Model != "nomic-embed-text" {
		t.Fatalf("vectors report %+v", rep.Vectors)
	}
	const query = "how do I mend an automobile?"
	if docs := searchWith(t, dir, sources.RetrievalBM25, e, query); len(docs) != 0 {
		t.Errorf("BM25 found %v for a paraphrase that shares no word", docs)
	}
	for _, mode := range []string{sources.RetrievalHybrid, sources.RetrievalDense, ""} {
		docs := searchWith(t, dir, mode, e, query)
		if len(docs) == 0 || docs[0].Title != "Car repair" {
			t.Fatalf("%q search: %v", mode, docs)
		}
		if r := docs[0].Ranks; r == nil || r.Vector != 1 || r.BM25 != 0 {
			t.Errorf("%q search: ranks %+v, want found by meaning only, first", mode, r)
		}
		if docs[0].Source != "local:notes" || !strings.Contains(docs[0].Text, "brake pads") {
			t.Errorf("%q search: %+v", mode, docs[0])
		}
	}
	// A query both legs find is first in both.
	docs := searchWith(t, dir, sources.RetrievalHybrid, e, "car repair brake pads")
	if r := docs[0].Ranks; docs[0].Title != "Car repair" || r == nil || r.BM25 != 1 || r.Vector != 1 {
		t.Errorf("both legs: %v ranks %+v", docs[0].Title, docs[0].Ranks)
	}
}

func TestEmbedIncremental(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	writeFiles(t, src, meaningFiles)
	e := &conceptEmbedder{model: "nomic-embed-text", dims: 32}
	ctx := context.Background()
	if _, err := Index(ctx, dir, "notes", []string{src}, IndexOptions{Embed: e}); err != nil {
		t.Fatal(err)
	}
	// Twice: nothing is embedded.
	rep, err := Index(ctx, dir, "notes", []string{src}, IndexOptions{Embed: e})
	if err != nil || rep.Vectors.Embedded != 0 || rep.Vectors.Files != 0 || e.embedded() != 3 {
		t.Fatalf("second run: %+v %v (%d embedded in all)", rep.Vectors, err, e.embedded())
	}
	// One file changed: only its passage.
	writeFiles(t, src, map[string]string{"bakery.md": "# Bread\n\nRye bread keeps for a week wrapped in cloth."})
	rep, err = Index(ctx, dir, "notes", []string{src}, IndexOptions{Embed: e})
	if err != nil || rep.Vectors.Embedded != 1 || rep.Vectors.Files != 1 || rep.Vectors.Vectors != 3 {
		t.Fatalf("after one change: %+v %v", rep.Vectors, err)
	}
	// A file removed: its vector goes, without any server.
	os.Remove(filepath.Join(src, "harbour.md"))
	rep, err = Index(ctx, dir, "notes", []string{src}, IndexOptions{})
	if err != nil || rep.Vectors == nil || rep.Vectors.Removed != 1 || rep.Vectors.Vectors != 2 {
		t.Fatalf("after a removal: %+v %v", rep.Vectors, err)
	}
	for _, d := range searchWith(t, dir, sources.RetrievalDense, e, "fishing boat at the harbour") {
		if d.Title == "Harbour" {
			t.Error("the removed file is still found by meaning")
		}
	}
	// A file changed without a server keeps no vectors of its old text.
	writeFiles(t, src, map[string]string{"bakery.md": "# Bread\n\nBaguettes are long."})
	rep, err = Index(ctx, dir, "notes", []string{src}, IndexOptions{})
	if err != nil || rep.Vectors.Stale != 1 || rep.Vectors.Vectors != 1 || rep.Vectors.Complete {
		t.Fatalf("a change without a server: %+v %v", rep.Vectors, err)
	}
	// The same text under two files: embedded once, found under both.
	writeFiles(t, src, map[string]string{"copy.md": meaningFiles["garage.md"]})
	before := e.embedded()
	rep, err = Index(ctx, dir, "notes", []string{src}, IndexOptions{Embed: e})
	if err != nil || e.embedded() != before+1 || rep.Vectors.Reused != 1 || rep.Vectors.Vectors != 3 {
		t.Fatalf("a copy: %+v %v, %d embedded", rep.Vectors, err, e.embedded()-before)
	}
}

func TestEmbedModelRefusedAndReembed(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	writeFiles(t, src, meaningFiles)
	ctx := context.Background()
	nomic := &conceptEmbedder{model: "nomic-embed-text", dims: 32}
	if _, err := Index(ctx, dir, "notes", []string{src}, IndexOptions{Embed: nomic}); err != nil {
		t.Fatal(err)
	}
	bge := &conceptEmbedder{model: "bge-m3", dims: 48}
	_, err := Index(ctx, dir, "notes", []string{src}, IndexOptions{Embed: bge})
	if !errors.Is(err, ErrEmbedModel) || !strings.Contains(err.Error(), "prefrag index --reembed --corpus notes --embed-model bge-m3") {
		t.Fatalf("another model: %v", err)
	}
	if bge.embedded() != 0 {
		t.Error("the refused run embedded")
	}
	opts := DefaultOptions()
	opts.Embedder = bge
	c, err := OpenWith(dir, "notes", opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Search(ctx, "car", 3); !errors.Is(err, ErrEmbedModel) || !strings.Contains(err.Error(), "search it with --embed-model nomic-embed-text") {
		t.Errorf("search with another model: %v", err)
	}
	c.Close()
	if docs := searchWith(t, dir, sources.RetrievalBM25, bge, "car"); len(docs) != 1 {
		t.Errorf("a search by words needs no model: %v", docs)
	}
	rep, err := Index(ctx, dir, "notes", nil, IndexOptions{Embed: bge, Reembed: true})
	if err != nil || rep.Vectors.Embedded != 3 || !rep.Vectors.Complete {
		t.Fatalf("reembed: %+v %v", rep.Vectors, err)
	}
	st, err := vector.ReadStatus(vector.Dir(filepath.Join(dir, "notes")))
	if err != nil || st.Model != "bge-m3" || st.Dims != 48 || st.Vectors != 3 {
		t.Fatalf("after reembed: %+v %v", st, err)
	}
	if docs := searchWith(t, dir, sources.RetrievalDense, bge, "mend an automobile"); len(docs) == 0 || docs[0].Title != "Car repair" {
		t.Errorf("dense after reembed: %v", docs)
	}
}

func TestEmbedCutShortResumes(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	var lines []string
	for i := range 900 {
		lines = append(lines, fmt.Sprintf(`{"id":"d%d","title":"Note %d","text":"word%d about car repair number %d"}`, i, i, i, i))
	}
	writeFiles(t, src, map[string]string{"big.jsonl": strings.Join(lines, "\n")})
	ctx, cancel := context.WithCancel(context.Background())
	e := &conceptEmbedder{model: "m", dims: 16, failAfter: 600, cancel: cancel}
	_, err := Index(ctx, dir, "notes", []string{src}, IndexOptions{Embed: e})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cut short: %v", err)
	}
	// Searchable: by words, and by meaning for what was embedded.
	if docs := searchWith(t, dir, sources.RetrievalBM25, e, "word5"); len(docs) == 0 {
		t.Error("nothing found by words after a run cut short")
	}
	st, err := vector.ReadStatus(vector.Dir(filepath.Join(dir, "notes")))
	if err != nil || st.Complete || st.Vectors == 0 || st.Vectors >= 900 {
		t.Fatalf("after the cut: %+v %v", st, err)
	}
	done := e.embedded()
	e2 := &conceptEmbedder{model: "m", dims: 16}
	if docs := searchWith(t, dir, sources.RetrievalHybrid, e2, "word5"); len(docs) == 0 {
		t.Error("nothing found by a hybrid search after a run cut short")
	}
	e2.texts = 0
	rep, err := Index(context.Background(), dir, "notes", []string{src}, IndexOptions{Embed: e2})
	if err != nil || !rep.Vectors.Complete || rep.Vectors.Vectors != 900 {
		t.Fatalf("the re-run: %+v %v", rep.Vectors, err)
	}
	if e2.embedded() != 900-done {
		t.Errorf("the re-run embedded %d passages, want the %d not embedded before", e2.embedded(), 900-done)
	}
}

// Damaged vectors: a hybrid search answers by words with a note that says
// how to embed again; a dense search fails with that sentence.
func TestDamagedVectors(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	writeFiles(t, src, meaningFiles)
	e := &conceptEmbedder{model: "m", dims: 16}
	if _, err := Index(context.Background(), dir, "notes", []string{src}, IndexOptions{Embed: e}); err != nil {
		t.Fatal(err)
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "notes", "vectors", "g-*", "p-*.vec"))
	for _, p := range parts {
		os.Truncate(p, 70)
	}
	for _, mode := range []string{sources.RetrievalHybrid, sources.RetrievalDense} {
		opts := DefaultOptions()
		opts.Retrieval, opts.Embedder = mode, e
		c, err := OpenWith(dir, "notes", opts)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := c.Search(context.Background(), "brake pads", 3)
		c.Close()
		if err == nil || !strings.Contains(err.Error(), "prefrag index --reembed --corpus notes") {
			t.Errorf("%s: %v", mode, err)
		}
		if mode == sources.RetrievalHybrid && (!errors.Is(err, sources.ErrDegraded) || len(docs) == 0) {
			t.Errorf("hybrid: %v, %d documents", err, len(docs))
		}
	}
}
