package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// checkCounters recomputes the corpus counters from the stored passages and
// compares them with what the writer maintained incrementally.
func checkCounters(t *testing.T, dir, name string) collectionStats {
	t.Helper()
	c := mustOpen(t, dir, name)
	defer c.Close()
	h, err := c.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer c.release(h)
	adv, _ := h.idx.Advanced()
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	all, err := r.DocIDReaderAll()
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	var body, title int64
	for {
		iid, err := all.Next()
		if err != nil {
			t.Fatal(err)
		}
		if iid == nil {
			break
		}
		id, _ := r.ExternalID(iid)
		d, err := storedDocument(r, id)
		if err != nil {
			t.Fatal(err)
		}
		b := d.Text
		if d.Title != "" {
			b = d.Title + "\n" + d.Text
			title += int64(len(h.en.Analyze([]byte(d.Title))))
		}
		body += int64(len(h.en.Analyze([]byte(b))))
	}
	if h.stats.BodyTokens != body || h.stats.TitleTokens != title {
		t.Errorf("counters: body %d title %d, recomputed %d and %d", h.stats.BodyTokens, h.stats.TitleTokens, body, title)
	}
	return h.stats
}

func allIDs(t *testing.T, dir, name string) []string {
	t.Helper()
	c := mustOpen(t, dir, name)
	defer c.Close()
	h, err := c.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer c.release(h)
	adv, _ := h.idx.Advanced()
	r, _ := adv.Reader()
	defer r.Close()
	all, _ := r.DocIDReaderAll()
	defer all.Close()
	var out []string
	for {
		iid, _ := all.Next()
		if iid == nil {
			break
		}
		id, _ := r.ExternalID(iid)
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func TestReindexChangedDeletedUnchanged(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{
		"keep.txt":       "The lighthouse keeper lit the lamp at dusk.",
		"change.md":      "# Old title\n\nThe harbour was quiet.",
		"gone.txt":       "This file will be deleted before the second run.",
		"sub/data.jsonl": `{"id":"a","title":"A","text":"alpha text"}` + "\n" + `{"id":"b","title":"B","text":"beta text"}` + "\n",
	})
	rep := mustIndex(t, dir, "r", src)
	if rep.Indexed != 4 || rep.Passages != 5 {
		t.Fatalf("first run: %+v", rep)
	}
	checkCounters(t, dir, "r")

	// Same files again: nothing read.
	rep = mustIndex(t, dir, "r", src)
	if rep.Indexed != 0 || rep.Unchanged != 4 || rep.Removed != 0 || rep.Passages != 0 {
		t.Fatalf("second run: %+v", rep)
	}
	// Touch without change: skipped by hash, new time recorded.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(src, "keep.txt"), future, future); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, src, map[string]string{
		"change.md":      "# New title\n\nThe harbour was busy with ships.",
		"sub/data.jsonl": `{"id":"b","title":"B","text":"beta text changed"}` + "\n" + `{"id":"c","title":"C","text":"gamma"}` + "\n",
	})
	if err := os.Remove(filepath.Join(src, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	rep = mustIndex(t, dir, "r", src)
	if rep.Indexed != 2 || rep.Unchanged != 1 || rep.Removed != 1 || rep.Passages != 3 || len(rep.Failed) != 0 {
		t.Fatalf("third run: %+v", rep)
	}
	st := checkCounters(t, dir, "r")
	if st.Documents != 4 {
		t.Errorf("documents = %d, want 4", st.Documents)
	}
	want := []string{"b", "c", filepath.Join(src, "change.md") + "#1", filepath.Join(src, "keep.txt") + "#1"}
	sort.Strings(want)
	if got := allIDs(t, dir, "r"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ids = %v\nwant %v", got, want)
	}
	c := mustOpen(t, dir, "r")
	docs, _ := c.Search(context.Background(), "harbour", 5)
	if len(docs) != 1 || docs[0].Title != "New title" {
		t.Errorf("changed file not updated: %+v", docs)
	}
	if docs, _ := c.Search(context.Background(), "deleted", 5); len(docs) != 0 {
		t.Errorf("deleted file still found: %+v", docs)
	}
	c.Close()

	// Indexing a sub-folder alone must not drop the files beside it.
	rep = mustIndex(t, dir, "r", filepath.Join(src, "sub"))
	if rep.Removed != 0 || rep.Unchanged != 1 {
		t.Errorf("sub-folder run: %+v", rep)
	}
	// A folder that is gone: its files leave the corpus.
	if err := os.RemoveAll(filepath.Join(src, "sub")); err != nil {
		t.Fatal(err)
	}
	rep = mustIndex(t, dir, "r", filepath.Join(src, "sub"))
	if rep.Removed != 1 || len(rep.Failed) != 1 {
		t.Errorf("removed folder run: %+v", rep)
	}
	if st := checkCounters(t, dir, "r"); st.Documents != 2 {
		t.Errorf("documents after folder removal = %d", st.Documents)
	}
}

func TestBadFilesNeverStopTheIngest(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 200)...)
	writeFiles(t, src, map[string]string{
		"good.txt":    "Good text about ravens and crows.",
		"image.txt":   string(png),
		"late.txt":    strings.Repeat("fine words here. ", 2000) + "\x00\x01binary tail",
		"bad.jsonl":   "{\"id\":\"x1\",\"text\":\"first fine line\"}\nnot json at all\n{\"id\":5,\"text\":\"numeric id\"}\n{\"title\":\"no text\"}\n{\"id\":\"x1\",\"text\":\"duplicate\"}\n\n",
		"empty.md":    "",
		"word.docx":   "this is not a zip file",
		"notes.xyz":   "unsupported extension inside a folder is ignored",
		".hidden.txt": "hidden files are skipped",
	})
	rep := mustIndex(t, dir, "b", src, filepath.Join(src, "notes.xyz"), filepath.Join(src, "missing.txt"))
	reasons := map[string]string{}
	for _, f := range rep.Failed {
		key := filepath.Base(f.Path)
		if f.Line > 0 {
			key = fmt.Sprintf("%s:%d", key, f.Line)
		}
		reasons[key] = f.Reason
	}
	for key, want := range map[string]string{
		"image.txt":   "binary data",
		"late.txt":    "NUL byte",
		"bad.jsonl:2": "not a JSON object",
		"bad.jsonl:4": `no "text"`,
		"bad.jsonl:5": "duplicate id",
		"word.docx":   "not a .docx",
		"notes.xyz":   "unsupported file type",
		"missing.txt": "no such file",
	} {
		if !strings.Contains(reasons[key], want) {
			t.Errorf("failure for %s = %q, want it to mention %q (all: %v)", key, reasons[key], want, reasons)
		}
	}
	if len(rep.Failed) != 8 {
		t.Errorf("failures = %v", rep.Failed)
	}
	// good.txt (1), bad.jsonl lines 1 and 3 (2), empty.md (0 passages).
	if rep.Passages != 3 || rep.Indexed != 3 {
		t.Errorf("report = %+v", rep)
	}
	got := allIDs(t, dir, "b")
	want := []string{"5", filepath.Join(src, "good.txt") + "#1", "x1"}
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ids = %v, want %v", got, want)
	}
	checkCounters(t, dir, "b")
}

func TestCancelAndResume(t *testing.T) {
	wo := WriterOptions{BatchPassages: 20}
	src, dir := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		var sb strings.Builder
		for p := 0; p < 6; p++ {
			fmt.Fprintf(&sb, "Paragraph %d of file %d. %s\n\n", p, i, strings.Repeat(fmt.Sprintf("word%d ", i), 120))
		}
		files[fmt.Sprintf("f%02d.txt", i)] = sb.String()
	}
	writeFiles(t, src, files)

	ctx, cancel := context.WithCancel(context.Background())
	var seen int
	rep, err := Index(ctx, dir, "c", []string{src}, IndexOptions{Writer: wo, Progress: func(p Progress) {
		seen++
		if p.FilesDone >= 10 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Index error = %v, want context.Canceled", err)
	}
	if seen == 0 || rep.Indexed < 10 || rep.Indexed >= 30 {
		t.Fatalf("cancelled run: %+v (progress calls %d)", rep, seen)
	}
	first := rep.Indexed
	checkCounters(t, dir, "c")

	rep = mustIndexWith(t, wo, dir, "c", src)
	if rep.Unchanged != first || rep.Indexed != 30-first {
		t.Errorf("resumed run: %+v, first run indexed %d", rep, first)
	}
	st := checkCounters(t, dir, "c")
	if st.Documents != 30 {
		t.Errorf("documents = %d", st.Documents)
	}

	// The resumed corpus is the one a single uninterrupted run builds.
	dir2 := t.TempDir()
	mustIndexWith(t, wo, dir2, "c", src)
	if a, b := allIDs(t, dir, "c"), allIDs(t, dir2, "c"); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("resumed ids differ from a clean run: %d vs %d", len(a), len(b))
	}
	s2 := checkCounters(t, dir2, "c")
	if s2.BodyTokens != st.BodyTokens || s2.Documents != st.Documents {
		t.Errorf("resumed counters %+v, clean run %+v", st, s2)
	}
}

func TestProgressReportsRate(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "one", "b.txt": "two", "c.txt": "three"})
	var last Progress
	calls := 0
	_, err := Index(context.Background(), dir, "p", []string{src}, IndexOptions{Progress: func(p Progress) {
		calls++
		last = p
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 3 || last.FilesDone != 3 || last.FilesTotal != 3 || last.Passages != 3 || last.Rate <= 0 {
		t.Errorf("last progress %+v after %d calls", last, calls)
	}
}
