package export

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/exportmark"
	"github.com/prefrag/prefrag/store"
)

// TestFormatsTable: every row of the format table is whole — a name, an
// extension with its dot, a help line and a writer — names and extensions
// are unique, and what each writer writes carries the export mark, so
// `prefrag index` skips it.
func TestFormatsTable(t *testing.T) {
	s := openStore(t)
	rec := storeCaseStudy(t, s, caseID)
	names, exts := map[string]bool{}, map[string]bool{}
	for _, f := range Formats {
		if f.Name == "" || !strings.HasPrefix(f.Ext, ".") || f.Help == "" || f.Write == nil {
			t.Errorf("row %+v is not whole", f)
		}
		if names[f.Name] || exts[f.Ext] {
			t.Errorf("%s or %s is in two rows", f.Name, f.Ext)
		}
		names[f.Name], exts[f.Ext] = true, true
		var out bytes.Buffer
		if err := Write(&out, f.Name, rec); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if head := out.Bytes()[:min(out.Len(), exportmark.HeadSize)]; !exportmark.Is(head) {
			t.Errorf("%s output lacks the export mark: %.200s", f.Name, out.String())
		}
	}
	if got := strings.Join(FormatNames(), "|"); got != "md|json|jsonl|pairs|html" {
		t.Errorf("format names %s: the CONTRACT's `--format md|json|jsonl|pairs|html` must stay", got)
	}
}

// withFormat adds row to the format table for the test (the tests that
// do are not parallel: the table is the package's).
func withFormat(t *testing.T, row Format) {
	t.Helper()
	saved := Formats
	Formats = append(slices.Clone(saved), row)
	t.Cleanup(func() { Formats = saved })
}

// TestNewFormatIsOneRow: a format added as one row (and its writer) is
// written, named and saved like the built-in ones — one file for several
// sessions, or one file each in a folder when the row says PerSession.
func TestNewFormatIsOneRow(t *testing.T) {
	s := openStore(t)
	a, b := storeCaseStudy(t, s, caseID), storeCaseStudy(t, s, "second")
	questions := func(w io.Writer, recs ...*store.Record) error {
		for _, r := range recs {
			if _, err := io.WriteString(w, exportmark.Comment+"\n"+r.Session.Question+"\n"); err != nil {
				return err
			}
		}
		return nil
	}
	withFormat(t, Format{Name: "questions", Ext: ".q.txt", Help: "the questions", Write: questions})
	withFormat(t, Format{Name: "pages", Ext: ".page.txt", Help: "one question a file", PerSession: true, Write: questions})

	var out bytes.Buffer
	if err := Write(&out, "questions", a, b); err != nil || strings.Count(out.String(), a.Session.Question) != 2 {
		t.Fatalf("Write: %v %q", err, out.String())
	}
	if got := FileName(a.Session, "questions"); !strings.HasSuffix(got, "-"+caseID[:8]+".q.txt") {
		t.Errorf("FileName = %q, want the row's extension", got)
	}
	dir := t.TempDir()
	path, err := Save(dir+string(filepath.Separator), "questions", false, a, b)
	if err != nil || filepath.Base(path) != "prefrag-sessions.q.txt" {
		t.Fatalf("Save of two sessions in one file: %q %v", path, err)
	}
	folder := filepath.Join(dir, "pages")
	if got, err := Save(folder, "pages", false, a, b); err != nil || got != folder {
		t.Fatalf("Save one file per session: %q %v", got, err)
	}
	files, _ := filepath.Glob(filepath.Join(folder, "*.page.txt"))
	if len(files) != 2 {
		t.Fatalf("a PerSession row wrote %d files, want 2: %v", len(files), files)
	}
	if data, err := os.ReadFile(files[0]); err != nil || !exportmark.Is(data) {
		t.Errorf("%s: %v %q", files[0], err, data)
	}
}
