package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Resolve reads a name the way a person writes it and never takes it for
// a corpus it does not name: spaces and a "local:" prefix are dropped, a
// difference of case alone resolves to the one corpus it matches (with a
// note), and anything else is an error with the closest name.
func TestResolve(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "one two three"})
	for _, n := range []string{"notes", "wiki", "Papers", "papers"} {
		mustIndex(t, dir, n, src)
	}
	for _, tt := range []struct {
		given, want, note, err string
	}{
		{given: "notes", want: "notes"},
		{given: "  notes ", want: "notes"},
		{given: "local:notes", want: "notes"},
		{given: "local: notes", want: "notes"},
		{given: "Notes", want: "notes", note: `"Notes" is read as corpus "notes"`},
		{given: "local:WIKI", want: "wiki", note: `is read as corpus "wiki"`},
		{given: "papers", want: "papers"},
		{given: "PAPERS", err: `matches several corpora that differ only in case (Papers, papers)`},
		{given: "nottes", err: `no corpus is named "nottes" — did you mean "notes"?`},
		{given: "Nottes", err: `did you mean "notes"?`},
		{given: "web:duckduckgo", err: `no corpus is named "web:duckduckgo"; the corpora are Papers, notes, papers, wiki`},
		{given: "../notes", err: `no corpus is named "../notes"`},
		{given: "", err: `no corpus is named ""`},
	} {
		got, err := Resolve(dir, tt.given)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrUnknownCorpus) {
				t.Errorf("Resolve(%q) = %+v, %v; want an error saying %q", tt.given, got, err, tt.err)
			}
			continue
		}
		if err != nil || got.Name != tt.want || !strings.Contains(got.Note, tt.note) || (tt.note == "") != (got.Note == "") {
			t.Errorf("Resolve(%q) = %+v, %v; want %q with note %q", tt.given, got, err, tt.want, tt.note)
		}
	}
	empty := t.TempDir()
	if _, err := Resolve(empty, "notes"); err == nil || !strings.Contains(err.Error(), "has none yet") {
		t.Errorf("an empty home: %v", err)
	}
	if _, err := Resolve(filepath.Join(empty, "missing"), "notes"); err == nil || !strings.Contains(err.Error(), "has none yet") {
		t.Errorf("a missing corpora directory: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "stray"), 0o755) // a folder that is no corpus
	if names, _ := Names(dir); strings.Join(names, ",") != "Papers,notes,papers,wiki" {
		t.Errorf("Names = %v", names)
	}
}
