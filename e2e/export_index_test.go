package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Nothing prefrag writes is indexed as a source: every export format
// carries the mark `index` recognises, `index` skips those files and says
// how many, and --include-exports takes them in on purpose.
func TestIndexSkipsExports(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	out, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := parseEvents(t, out)[0].Session
	dir := filepath.Join(w.home, "reports")
	files := map[string]string{"md": "report.md", "json": "report.json", "jsonl": "report.jsonl", "pairs": "report.pairs.jsonl", "html": "report.html"}
	for format, name := range files {
		if _, errOut, code := w.run("sessions", "export", id, "--format", format, "-o", filepath.Join(dir, name)); code != 0 {
			t.Fatalf("export %s: %s", format, errOut)
		}
	}
	// Markdown exported under a name any text file could have.
	md, _, _ := w.run("sessions", "export", id, "--format", "md")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	// One file of the folder is the user's own.
	if err := os.WriteFile(filepath.Join(dir, "own.md"), []byte("# Own notes\n\nThe user's own notes about Carsten Olsen.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// .md, .html, .jsonl, .pairs.jsonl and .txt are indexed file types
	// (.json is not): 5 exports are found.
	out, errOut, code = w.run("index", "--corpus", "reports", dir)
	if code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "skipped 5 files prefrag exported") {
		t.Errorf("index does not say how many exports it skipped:\n%s", out)
	}
	if got := corpusDocs(t, w, "reports"); got != 1 {
		t.Errorf("corpus reports holds %d documents, want 1 (the user's own file, no export):\n%s", got, out)
	}
	hits, _, _ := w.run("search", "--corpus", "reports", "--json", "Carsten Olsen 1974")
	for _, l := range strings.Split(strings.TrimSpace(hits), "\n") {
		if l != "" && !strings.Contains(l, "own.md") {
			t.Errorf("search returns an exported file: %s", l)
		}
	}

	// On purpose: --include-exports takes them in.
	out, errOut, code = w.run("index", "--corpus", "reports", "--include-exports", dir)
	if code != 0 {
		t.Fatalf("index --include-exports: exit %d\n%s", code, errOut)
	}
	if strings.Contains(out, "skipped") {
		t.Errorf("--include-exports still skips:\n%s", out)
	}
	// The JSON Lines exports have no corpus lines (title, text): only
	// the two Markdown reports and the HTML page become documents.
	if got := corpusDocs(t, w, "reports"); got != 4 {
		t.Errorf("with --include-exports corpus reports holds %d documents, want 4", got)
	}
	// Without the flag again: the exports leave the corpus.
	out, _, _ = w.run("index", "--corpus", "reports", dir)
	if got := corpusDocs(t, w, "reports"); got != 1 {
		t.Errorf("after a run without --include-exports corpus reports holds %d documents, want 1:\n%s", got, out)
	}
}

// corpusDocs is the document count `corpora --json` reports for name.
func corpusDocs(t *testing.T, w *world, name string) int {
	t.Helper()
	out, errOut, code := w.run("corpora", "--json")
	if code != 0 {
		t.Fatalf("corpora: %s", errOut)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var c struct {
			Name      string `json:"name"`
			Documents int    `json:"documents"`
		}
		if json.Unmarshal([]byte(l), &c) == nil && c.Name == name {
			return c.Documents
		}
	}
	t.Fatalf("no corpus %s in:\n%s", name, out)
	return 0
}

// The workspace's export dialog proposes the exports folder of the data
// directory: started in a folder the user indexed, an export with the
// proposed path lands outside it, and re-indexing that folder takes in
// nothing new.
func TestTUIExportOutsideIndexedFolder(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	if _, errOut, code := w.run(w.askArgs(caseQuestion)...); code != 0 {
		t.Fatalf("ask: %s", errOut)
	}
	// The working directory is the folder corpus wiki was indexed from.
	s := startTmux(t, w, w.docs, "--llm-url", w.llm.URL(), "--model", "fake-model")
	s.waitFor("start", 15*time.Second, "Ask a question")
	s.keys("Tab")
	s.keys("2")
	s.waitFor("sessions", 10*time.Second, "Sessions (1)")
	s.keys("Enter")
	// The stepper names the session by the id `sessions list` prints.
	list, _, _ := w.run("sessions", "list")
	short := strings.Fields(strings.Split(list, "\n")[1])[0]
	s.waitFor("stepper", 10*time.Second, "› session "+short+" ")
	pressed(t, s, "x", "Export this session", "path")
	exported := exportWritten(t, s, filepath.Join(w.home, "data", "exports"), w.docs)
	if rel, err := filepath.Rel(w.docs, exported); err == nil && !strings.HasPrefix(rel, "..") {
		t.Errorf("export %s is inside the indexed folder %s", exported, w.docs)
	}
	out, errOut, code := w.run("index", "--corpus", "wiki", w.docs)
	if code != 0 || !strings.Contains(out, "0 indexed") {
		t.Errorf("re-indexing the working directory took something in (exit %d):\n%s%s", code, out, errOut)
	}
}
