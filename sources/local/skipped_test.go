package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A .jsonl line left out (an id over MaxIDLength bytes, a line that is not
// JSON) is reported by every run that finds the file unchanged, since its
// document is still missing; once the file is fixed the report is gone.
// Before, the second run called the file unchanged and said nothing.
func TestSkippedLinesReportedWhileTheFileIsUnchanged(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	long := strings.Repeat("x", 600)
	writeFiles(t, src, map[string]string{
		"c.jsonl": `{"id":"` + long + `","title":"Long","text":"A document about zebras."}` + "\n" +
			`{"id":"ok1","text":"A document about giraffes."}` + "\nnot json\n",
	})
	want := map[int]string{1: `"id" is longer than 512 bytes`, 3: "not a JSON object"}
	check := func(run string, rep Report, unchanged bool) {
		t.Helper()
		got := map[int]string{}
		for _, f := range rep.Failed {
			if f.Unchanged != unchanged || filepath.Base(f.Path) != "c.jsonl" {
				t.Errorf("%s: failure %+v, want unchanged %v", run, f, unchanged)
			}
			got[f.Line] = f.Reason
		}
		for line, reason := range want {
			if !strings.Contains(got[line], reason) {
				t.Errorf("%s: line %d reported as %q, want %q (all %v)", run, line, got[line], reason, rep.Failed)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d lines reported, want %d: %v", run, len(got), len(want), rep.Failed)
		}
	}
	check("first run", mustIndex(t, dir, "j", src), false)
	for _, run := range []string{"second run", "third run"} {
		rep := mustIndex(t, dir, "j", src)
		if rep.Unchanged != 1 || rep.Indexed != 0 {
			t.Fatalf("%s: %+v", run, rep)
		}
		check(run, rep, true)
	}
	// Touched but the same bytes: still unchanged, still reported.
	p := filepath.Join(src, "c.jsonl")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	check("after a touch", mustIndex(t, dir, "j", src), true)
	writeFiles(t, src, map[string]string{"c.jsonl": `{"id":"ok1","text":"A document about giraffes."}` + "\n"})
	if rep := mustIndex(t, dir, "j", src); len(rep.Failed) != 0 || rep.Indexed != 1 {
		t.Errorf("after the fix: %+v", rep)
	}
	if rep := mustIndex(t, dir, "j", src); len(rep.Failed) != 0 || rep.Unchanged != 1 {
		t.Errorf("unchanged after the fix: %+v", rep)
	}
}
