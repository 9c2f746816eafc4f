package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every id `sessions list` prints opens its session: the shortest unique
// prefix (at least 7 characters) over the stored ids. Old ids (UUIDv7s that
// share their first 12 characters) keep working, and a new id is short.
func TestSessionsListIDsOpen(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	out, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errOut)
	}
	newID := parseEvents(t, out)[0].Session
	js, errOut, code := w.run("sessions", "export", newID, "--format", "json")
	if code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	// Sessions of an older database: ids made the old way, the same
	// second, sharing their first 12 characters.
	old := []string{"019ab3c4d5e67a1b8c2d3e4f5a6b7c8d", "019ab3c4d5e67f009e8d7c6b5a493827", "019ab3c4d5e77a1b8c2d3e4f5a6b7c8d"}
	for i, id := range old {
		file := filepath.Join(w.home, "old.json")
		doc := strings.ReplaceAll(js, newID, id)
		doc = strings.Replace(doc, caseQuestion, "old question "+string(rune('A'+i))+" "+caseQuestion, 1)
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := w.run("sessions", "import", file); code != 0 {
			t.Fatalf("import %s: %s", id, errOut)
		}
	}
	list, errOut, code := w.run("sessions", "list")
	if code != 0 {
		t.Fatalf("sessions list: %s", errOut)
	}
	printed := map[string]string{} // full id → printed id
	for _, l := range strings.Split(strings.TrimSpace(list), "\n")[1:] {
		short := strings.Fields(l)[0]
		shown, errOut, code := w.run("sessions", "show", short, "--json")
		if code != 0 {
			t.Errorf("the id %q printed by sessions list does not open a session: exit %d: %s\n%s", short, code, errOut, list)
			continue
		}
		full := parseEvents(t, shown)[0].Session
		if !strings.HasPrefix(full, short) {
			t.Errorf("%q opened session %s", short, full)
		}
		if _, dup := printed[full]; dup {
			t.Errorf("session %s printed twice", full)
		}
		printed[full] = short
	}
	if len(printed) != 1+len(old) {
		t.Fatalf("%d sessions opened from the list, want %d:\n%s", len(printed), 1+len(old), list)
	}
	if p := printed[newID]; len(p) > 8 {
		t.Errorf("the new session's id is printed as %q: a new id needs no more than 8 characters", p)
	}
	// Old ids work in full and by any unique prefix.
	for _, id := range old {
		for _, q := range []string{id, id[:14]} {
			if _, errOut, code := w.run("sessions", "show", q); code != 0 {
				t.Errorf("sessions show %s: exit %d: %s", q, code, errOut)
			}
		}
	}
}
