package cli

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
	"github.com/prefrag/prefrag/store/export"
)

// TestExportFormatIsOneRow: a row added to store/export's format table
// is all `sessions export` needs — --format takes it, --help and the
// usage line name it, the bash and fish completions offer it, and the
// export writes the file with the row's extension. (Not parallel: the
// table is store/export's.)
func TestExportFormatIsOneRow(t *testing.T) {
	dir := configWorld(t, "")
	saved := export.Formats
	export.Formats = append(slices.Clone(saved), export.Format{Name: "questions", Ext: ".q.txt", Help: "only the questions",
		Write: func(w io.Writer, recs ...*store.Record) error {
			for _, r := range recs {
				if _, err := io.WriteString(w, exportmark.Comment+"\n"+r.Session.Question+"\n"); err != nil {
					return err
				}
			}
			return nil
		}})
	t.Cleanup(func() { export.Formats = saved })

	run := func(args ...string) (string, string, int) {
		t.Helper()
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errb)
		return out.String(), errb.String(), code
	}
	out, _, _ := run("sessions", "export", "--help")
	for _, want := range []string{"--format md|json|jsonl|pairs|html|questions ", "questions (only the questions)"} {
		if !strings.Contains(out, want) {
			t.Errorf("sessions export --help lacks %q:\n%s", want, out)
		}
	}
	if bash, _, _ := run("completion", "bash"); !strings.Contains(bash, `compgen -W "md json jsonl pairs html questions"`) {
		t.Error("the bash completion does not offer the new format after --format")
	}
	if fish, _, _ := run("completion", "fish"); !strings.Contains(fish, `-l format -x -a "md json jsonl pairs html questions"`) {
		t.Error("the fish completion does not offer the new format after --format")
	}
	if _, errs, code := run("sessions", "export", "last", "--format", "pdf"); code != ExitUsage || !strings.Contains(errs, "one of md, json, jsonl, pairs, html, questions,") {
		t.Errorf("--format pdf: exit %d %q", code, errs)
	}

	if _, errs, code := run("demo", "--json", "--home", os.Getenv("PREFRAG_HOME")); code != ExitOK {
		t.Fatalf("demo: exit %d %s", code, errs)
	}
	folder := filepath.Join(dir, "out") + string(filepath.Separator)
	if _, errs, code := run("sessions", "export", "last", "--format", "questions", "-o", folder); code != ExitOK {
		t.Fatalf("export: exit %d %s", code, errs)
	}
	files, _ := filepath.Glob(filepath.Join(folder, "*.q.txt"))
	if len(files) != 1 {
		t.Fatalf("exported files %v, want one *.q.txt", files)
	}
	if data, _ := os.ReadFile(files[0]); !exportmark.Is(data) || strings.Count(string(data), "\n") != 2 {
		t.Errorf("%s holds %q", files[0], data)
	}
}
