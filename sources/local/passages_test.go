package local

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Passages visits every live passage once: a file re-indexed after a change
// shows only its new text, a deleted file none.
func TestPassagesVisitsLivePassages(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "alpha one", "b.txt": "beta two", "c.txt": "gamma three"})
	mustIndex(t, dir, "c", src)
	writeFiles(t, src, map[string]string{"a.txt": "alpha changed"})
	os.Remove(filepath.Join(src, "c.txt"))
	mustIndex(t, dir, "c", src)
	c, err := Open(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []string
	err = c.Passages(context.Background(), func(title, text string) error {
		got = append(got, title+": "+text)
		return nil
	})
	sort.Strings(got)
	if err != nil || strings.Join(got, "|") != "a: alpha changed|b: beta two" {
		t.Errorf("passages %q, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Passages(ctx, func(string, string) error { return nil }); err == nil {
		t.Error("a cancelled context visited every passage")
	}
}
