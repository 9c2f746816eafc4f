package local

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// Passage returns what a search returned for the same id, whole; an id the
// corpus does not hold is ErrNoPassage, not an empty document.
func TestPassageByID(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"kb.jsonl": `{"id":"ph","title":"pH","text":"The concept of pH was introduced by Sørensen in 1909.","url":"https://example.org/ph"}` + "\n" +
			`{"id":"olsen","title":"Carsten Olsen","text":"Carsten Olsen assisted Sørensen."}` + "\n",
	})
	mustIndex(t, dir, "kb", filepath.Join(root, "kb.jsonl"))
	c := mustOpen(t, dir, "kb")
	defer c.Close()
	hits, err := c.Search(context.Background(), "pH introduced", 1)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search: %v %v", hits, err)
	}
	got, err := c.Passage(context.Background(), hits[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	want := hits[0]
	want.Score = 0
	if got != want {
		t.Errorf("Passage(%q)\n got %+v\nwant %+v", want.ID, got, want)
	}
	if got.URL != "https://example.org/ph" || got.Source != "local:kb" {
		t.Errorf("passage %+v", got)
	}
	_, err = c.Passage(context.Background(), "nope")
	if !errors.Is(err, ErrNoPassage) {
		t.Errorf("unknown id: %v, want ErrNoPassage", err)
	}
}
