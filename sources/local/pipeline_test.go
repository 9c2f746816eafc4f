package local

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSegmentsAreBuiltBeforeBatch: every batch of passages reaches Bleve
// with its segment built (in the background, see prebuild.go), and the
// corpus reads back whole.
func TestSegmentsAreBuiltBeforeBatch(t *testing.T) {
	src := t.TempDir()
	syntheticCorpus(t, filepath.Join(src, "c.jsonl"), 1000)
	before := prebuiltSegments.Load()
	dir := t.TempDir()
	rep := mustIndexWith(t, WriterOptions{BatchPassages: 40}, dir, "p", src)
	built := prebuiltSegments.Load() - before
	if want := int64((rep.Passages + 39) / 40); built < want {
		t.Errorf("%d of at least %d batches reached Bleve with their segment built", built, want)
	}
	if got := len(allIDs(t, dir, "p")); int64(got) != rep.Passages {
		t.Errorf("corpus holds %d passages, the run added %d", got, rep.Passages)
	}
	checkCounters(t, dir, "p")
}

// TestDuplicateIDsRefusedAcrossBatches: in a fresh corpus ids are checked
// through a filter of the ids queued so far; an id that was written in an
// earlier batch, by this file or another, is still refused.
func TestDuplicateIDsRefusedAcrossBatches(t *testing.T) {
	var a, b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&a, "{\"id\":\"a%d\",\"text\":\"passage number %d about rivers\"}\n", i, i)
	}
	fmt.Fprintf(&a, "{\"id\":\"a2\",\"text\":\"again\"}\n")
	fmt.Fprintf(&b, "{\"id\":\"b1\",\"text\":\"fine\"}\n{\"id\":\"a5\",\"text\":\"taken by a\"}\n")
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"1a.jsonl": a.String(), "2b.jsonl": b.String()})
	dir := t.TempDir()
	rep := mustIndexWith(t, WriterOptions{BatchPassages: 3}, dir, "d", src)
	got := map[string]string{}
	for _, f := range rep.Failed {
		got[fmt.Sprintf("%s:%d", filepath.Base(f.Path), f.Line)] = f.Reason
	}
	for where, owner := range map[string]string{"1a.jsonl:21": "earlier in this file", "2b.jsonl:2": "1a.jsonl"} {
		if r := got[where]; !strings.Contains(r, "duplicate id") || !strings.Contains(r, owner) {
			t.Errorf("%s: %q, want a duplicate id already %s", where, r, owner)
		}
	}
	if rep.Passages != 21 {
		t.Errorf("%d passages added, want 21", rep.Passages)
	}
	// A later run (the corpus is no longer fresh) checks the index itself.
	writeFiles(t, src, map[string]string{"3c.jsonl": "{\"id\":\"a7\",\"text\":\"taken\"}\n{\"id\":\"c1\",\"text\":\"new\"}\n"})
	rep = mustIndexWith(t, WriterOptions{BatchPassages: 3}, dir, "d", src)
	var fresh, kept []Failure
	for _, f := range rep.Failed {
		if f.Unchanged {
			kept = append(kept, f) // the lines of the unchanged files, again
		} else {
			fresh = append(fresh, f)
		}
	}
	if len(fresh) != 1 || !strings.Contains(fresh[0].Reason, "duplicate id") || len(kept) != 2 {
		t.Errorf("second run: %+v", rep.Failed)
	}
}

// TestIDFilter: no id added is ever reported absent, and few absent ids
// are reported maybe.
func TestIDFilter(t *testing.T) {
	var f idFilter
	if f.mayHold("x") {
		t.Fatal("empty filter holds x")
	}
	for i := 0; i < 200_000; i++ {
		f.add(fmt.Sprintf("id-%d", i))
	}
	for i := 0; i < 200_000; i++ {
		if !f.mayHold(fmt.Sprintf("id-%d", i)) {
			t.Fatalf("id-%d added but not held", i)
		}
	}
	maybes := 0
	for i := 0; i < 200_000; i++ {
		if f.mayHold(fmt.Sprintf("other-%d", i)) {
			maybes++
		}
	}
	if maybes > 20 {
		t.Errorf("%d of 200000 absent ids reported maybe", maybes)
	}
}
