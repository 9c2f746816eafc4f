package export

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prefrag/prefrag/store"
)

func TestWriteExportPathSafety(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "exports")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(secret, filepath.Join(dir, "link-to-secret.md")))
	must(os.Symlink(outside, filepath.Join(dir, "out")))
	must(os.Symlink("inside.md", filepath.Join(dir, "link-inside.md")))
	must(os.WriteFile(filepath.Join(dir, "existing.md"), []byte("old"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "inside.md"), []byte("old inside"), 0o644))

	tests := []struct {
		name  string
		file  string
		force bool
		want  error
	}{
		{"new file", "report.md", false, nil},
		{"new file in a new subfolder", "2025/march/report.md", false, nil},
		{"existing without force", "existing.md", false, ErrTargetExists},
		{"existing with force", "existing.md", true, nil},
		{"dot dot", "../escape.md", false, ErrOutsideFolder},
		{"dot dot inside the name", "sub/../../escape.md", true, ErrOutsideFolder},
		{"absolute", filepath.Join(outside, "abs.md"), true, ErrOutsideFolder},
		{"through a symlinked folder", "out/escape.md", false, ErrOutsideFolder},
		{"through a symlinked folder with force", "out/escape.md", true, ErrOutsideFolder},
		{"symlink to outside without force", "link-to-secret.md", false, ErrTargetExists},
		{"symlink to outside with force replaces the link", "link-to-secret.md", true, nil},
		{"symlink inside with force replaces the link", "link-inside.md", true, nil},
		{"empty name", "", true, ErrOutsideFolder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := WriteExport(dir, tt.file, []byte("new"), tt.force)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("WriteExport(%q, force=%v) = %q, %v; want %v", tt.file, tt.force, path, err, tt.want)
			}
			if err != nil {
				return
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != "new" {
				t.Errorf("%s holds %q, %v", path, got, err)
			}
			if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("%s is not a regular file now", path)
			}
		})
	}
	if b, _ := os.ReadFile(secret); string(b) != "keep me" {
		t.Errorf("the file outside was changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "inside.md")); string(b) != "old inside" {
		t.Errorf("the symlink target inside was written through: %q", b)
	}
	for _, f := range []string{filepath.Join(base, "escape.md"), filepath.Join(outside, "escape.md"), filepath.Join(outside, "abs.md")} {
		if _, err := os.Stat(f); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was written", f)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".prefrag-export-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	var exists *TargetExistsError
	_, err := WriteExport(dir, "existing.md", nil, false)
	if !errors.As(err, &exists) || !errors.Is(err, fs.ErrExist) {
		t.Errorf("error %v is not a *TargetExistsError matching fs.ErrExist", err)
	}
}

func TestTarget(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ out, dir, name string }{
		{"", ".", "default.md"},
		{dir, dir, "default.md"},
		{"reports/", "reports/", "default.md"},
		{filepath.Join(dir, "x.md"), dir, "x.md"},
		{"x.md", ".", "x.md"},
		{"../up/x.md", "../up", "x.md"},
	}
	for _, tt := range tests {
		d, n := Target(tt.out, "default.md")
		if d != tt.dir || n != tt.name {
			t.Errorf("Target(%q) = %q, %q; want %q, %q", tt.out, d, n, tt.dir, tt.name)
		}
	}
}

func TestFileName(t *testing.T) {
	start := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	tests := []struct {
		question, id, format, want string
	}{
		{"In what year did the Danish plant ecologist die?", "0b4f6c2e-9a51", FormatMarkdown, "2025-03-14-in-what-year-did-the-danish-plant-0b4f6c2e.md"},
		{"../../etc/passwd", "x/../../y", FormatJSON, "2025-03-14-etc-passwd-x-y.json"},
		{"Ærø? ¿Qué?", "abc", FormatPairs, "2025-03-14-r-qu-abc.pairs.jsonl"},
		{"", "", FormatJSONL, "2025-03-14.jsonl"},
	}
	for _, tt := range tests {
		got := FileName(store.Session{Question: tt.question, ID: tt.id, Started: start}, tt.format)
		if got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.question, got, tt.want)
		}
		if !filepath.IsLocal(got) || filepath.Base(got) != got {
			t.Errorf("FileName(%q) = %q is not a plain local name", tt.question, got)
		}
	}
}
