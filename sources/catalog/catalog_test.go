package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/prefrag/prefrag/sources/local"
)

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustIndex(t testing.TB, dir, name string, paths ...string) local.Report {
	t.Helper()
	rep, err := Index(context.Background(), dir, name, paths, local.IndexOptions{})
	if err != nil {
		t.Fatalf("Index: %v", err)
	}
	return rep
}

func TestPinListDelete(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "one two three"})
	if p, err := Pinned(dir); err != nil || p != "" {
		t.Fatalf("Pinned on empty dir = %q, %v", p, err)
	}
	mustIndex(t, dir, "alpha", src)
	mustIndex(t, dir, "beta", src)
	if err := Pin(dir, "beta"); err != nil {
		t.Fatal(err)
	}
	if p, _ := Pinned(dir); p != "beta" {
		t.Fatalf("Pinned = %q", p)
	}
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "alpha" || list[0].Pinned || !list[1].Pinned || list[1].Stats.Passages != 1 || list[1].Stats.Documents != 1 {
		t.Fatalf("List = %+v", list)
	}
	if err := Pin(dir, "gamma"); !errors.Is(err, local.ErrNotFound) {
		t.Errorf("Pin(missing) = %v", err)
	}
	if err := Delete(dir, "beta"); err != nil {
		t.Fatal(err)
	}
	if p, _ := Pinned(dir); p != "" {
		t.Errorf("Pinned after delete = %q", p)
	}
	if _, err := local.Open(dir, "beta"); !errors.Is(err, local.ErrNotFound) {
		t.Errorf("Open(deleted) = %v", err)
	}
	if list, _ := List(dir); len(list) != 1 {
		t.Errorf("List after delete = %+v", list)
	}
	if list, err := List(filepath.Join(dir, "nowhere")); err != nil || list != nil {
		t.Errorf("List(missing dir) = %v, %v", list, err)
	}
}
