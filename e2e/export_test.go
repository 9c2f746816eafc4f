package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportAndImport(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	out, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := parseEvents(t, out)[0].Session
	dir := filepath.Join(w.home, "exports")
	md := filepath.Join(dir, "case.md")
	if _, errOut, code := w.run("sessions", "export", id, "--format", "md", "-o", md); code != 0 {
		t.Fatalf("export md: %s", errOut)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{caseQuestion, "1974", "Carsten Olsen", "web:searxng", "Only the chemist again", "CORRECT"} {
		if !strings.Contains(doc, want) {
			t.Errorf("markdown export lacks %q", want)
		}
	}
	if _, errOut, code := w.run("sessions", "export", id, "--format", "md", "-o", md); code == 0 || !strings.Contains(errOut, "--force") {
		t.Errorf("an existing export must not be overwritten without --force (exit %d, %q)", code, errOut)
	}
	if _, _, code := w.run("sessions", "export", id, "--format", "md", "-o", md, "--force"); code != 0 {
		t.Error("--force must replace the file")
	}
	// JSON round trip into a fresh home.
	js := filepath.Join(dir, "case.json")
	if _, errOut, code := w.run("sessions", "export", id, "--format", "json", "-o", js); code != 0 {
		t.Fatal(errOut)
	}
	fresh := &world{t: t, home: t.TempDir()}
	if _, errOut, code := fresh.run("sessions", "import", js); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	orig, _, _ := w.run("sessions", "show", id, "--json")
	back, _, _ := fresh.run("sessions", "show", id, "--json")
	if orig == "" || orig != back {
		t.Errorf("events differ after export → import")
	}
	// Preference pairs carry the exact texts the judge saw.
	pairs, _, code := w.run("sessions", "export", id, "--format", "pairs")
	if code != 0 || strings.Count(strings.TrimSpace(pairs), "\n") != 1 {
		t.Fatalf("pairs: %q", pairs)
	}
	if !strings.Contains(pairs, "Only the chemist again") || !strings.Contains(pairs, "famous for the introduction of the concept of pH") {
		t.Errorf("pairs lack the judge's texts: %s", pairs)
	}
	// Batch export with a filter.
	if _, errOut, code := w.run("sessions", "export", "--all", "--label", "CORRECT", "--format", "jsonl", "-o", filepath.Join(dir, "all.jsonl")); code != 0 {
		t.Fatal(errOut)
	}
}
