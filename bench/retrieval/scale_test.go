package retrieval

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadAll: every regular file under the folder is read whole, nested
// ones too, and a missing folder is an error.
func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	files := map[string]int{"a": 10, "store/b.zap": 3 << 20, "store/deep/c": 1}
	var want int64
	for name, size := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		want += int64(size)
	}
	got, err := readAll(dir)
	if err != nil || got != want {
		t.Fatalf("readAll = %d, %v; want %d bytes", got, err, want)
	}
	if _, err := readAll(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing folder read without an error")
	}
}
