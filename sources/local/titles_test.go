package local

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

// titleOf returns the title of the passage a query finds first.
func titleOf(t *testing.T, c *Corpus, q string) sources.Document {
	t.Helper()
	return searchOne(t, c, q)
}

func TestDocumentTitles(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{
		"a.txt":  "Tidal Patterns of the Wadden Sea\n\nThe mudflats drain twice daily.\n",
		"b.txt":  "This note has no title line.\n\nLugworms burrow deep.\n",
		"c.md":   "Intro text first\n\n## Razorbills at Sea\n\nRazorbills winter offshore.\n",
		"d.md":   "Kittiwake Colonies\n\nKittiwakes nest on ledges.\n",
		"e.html": "<html><body><h1>Fulmar Flight</h1><p>Fulmars glide low.</p></body></html>",
		"f.txt":  "Only one line about oystercatchers",
	})
	writeDOCX(t, filepath.Join(src, "memo.docx"), "Microsoft Word - memo.doc", "Shearwaters fly far.")
	if _, err := exec.LookPath("pdfinfo"); err == nil {
		writePDFTitled(t, filepath.Join(src, "gulls.pdf"), "Gulls of the North", "Herring gulls steal chips", "Kelp gulls drop shellfish")
		writePDFTitled(t, filepath.Join(src, "junk.pdf"), "Microsoft Word - junk.doc", "Guillemot Ledges", "Guillemots lay pointed eggs")
	}
	rep := mustIndex(t, dir, "titles", src)
	if len(rep.Failed) != 0 {
		t.Fatalf("failures: %v", rep.Failed)
	}
	c := mustOpen(t, dir, "titles")
	for _, tc := range []struct{ q, want string }{
		{"mudflats drain", "Tidal Patterns of the Wadden Sea"},
		{"lugworms", "b"},
		{"razorbills winter", "Razorbills at Sea"},
		{"kittiwakes ledges", "Kittiwake Colonies"},
		{"fulmars glide", "Fulmar Flight"},
		{"oystercatchers", "f"},
		{"shearwaters", "memo"},
	} {
		if d := titleOf(t, c, tc.q); d.Title != tc.want {
			t.Errorf("%q: title %q, want %q", tc.q, d.Title, tc.want)
		}
	}
	if _, err := exec.LookPath("pdfinfo"); err != nil {
		t.Log("pdfinfo is not installed: PDF part skipped")
		return
	}
	gulls := filepath.Join(src, "gulls.pdf")
	d := titleOf(t, c, "kelp gulls shellfish")
	if d.Title != "Gulls of the North" || d.Locator != gulls+"#p2" {
		t.Errorf("pdf passage = %+v", d)
	}
	if got, want := d.DisplayTitle(), "Gulls of the North, p. 2"; got != want {
		t.Errorf("DisplayTitle() = %q, want %q", got, want)
	}
	if d := titleOf(t, c, "guillemots pointed eggs"); d.Title != "Guillemot Ledges" {
		t.Errorf("junk /Title: title %q, want the first line of page 1", d.Title)
	}
}

// TestSeedPaperTitles indexes the shared seed papers (.txt files whose first
// line is the paper's title) and checks that each passage carries it.
func TestSeedPaperTitles(t *testing.T) {
	seeds := findShared(t, "seeds")
	dir := t.TempDir()
	rep := mustIndex(t, dir, "seeds", seeds)
	if rep.Indexed == 0 {
		t.Fatalf("nothing indexed: %+v", rep)
	}
	c := mustOpen(t, dir, "seeds")
	for _, tc := range []struct{ q, want string }{
		{"PrefRAG Preference-Driven Multi-Source", "PrefRAG: Preference-Driven Multi-Source Retrieval Augmented Generation"},
		{"synergizing reasoning preference-driven retrieval", "Towards Multi-Source Retrieval-Augmented Generation via Synergizing Reasoning and Preference-Driven Retrieval"},
		{"SMARTRAG jointly learn", "SMARTRAG: JOINTLY LEARN RAG-RELATED TASKS FROM THE ENVIRONMENT FEEDBACK"},
		{"slim proxy models decide when and what to retrieve", "Small Models, Big Insights: Leveraging Slim Proxy Models To Decide When and What to Retrieve for LLMs"},
	} {
		docs, err := c.Search(context.Background(), tc.q, 20)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range docs {
			found = found || d.Title == tc.want
		}
		if !found {
			var got []string
			for _, d := range docs {
				got = append(got, d.Title)
			}
			t.Errorf("%q: no passage titled %q among %q", tc.q, tc.want, got)
		}
	}
	docs, err := c.Search(context.Background(), "retrieval", 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if base := filepath.Base(d.Locator); strings.HasPrefix(d.Title, strings.SplitN(base, ".", 2)[0]) {
			t.Errorf("%s is titled by its file name %q", d.ID, d.Title)
		}
	}
}

// findShared returns ../shared/<rel> found by walking up from the working
// directory, or skips the test.
func findShared(t *testing.T, rel string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", rel)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Skipf("shared/%s not found above %s; skipping", rel, wd)
		}
	}
}

// TestOldCorpusGetsNewTitles: a corpus indexed before titles had versions
// (manifest entries without "titles") re-extracts its text and PDF files
// on the next index run though they are unchanged; JSONL files stay.
func TestOldCorpusGetsNewTitles(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{
		"a.txt":   "Tidal Patterns of the Wadden Sea\n\nThe mudflats drain twice daily.\n",
		"c.jsonl": `{"id":"r1","title":"Record","text":"Eiders dive for mussels."}` + "\n",
	})
	mustIndex(t, dir, "old", src)
	w, err := OpenWriter(dir, "old", WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "c.jsonl"} {
		e, err := w.entry(filepath.Join(src, name))
		if err != nil || e == nil || e.Titles != titlesVersion {
			t.Fatalf("entry of %s = %+v, %v", name, e, err)
		}
		e.Titles = 0
		raw, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.idx.SetInternal(fileKey(filepath.Join(src, name)), raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rep := mustIndex(t, dir, "old", src)
	if rep.Indexed != 1 || rep.Unchanged != 1 {
		t.Errorf("re-index of an old corpus: %+v, want the .txt indexed again and the .jsonl unchanged", rep)
	}
	rep = mustIndex(t, dir, "old", src)
	if rep.Indexed != 0 || rep.Unchanged != 2 {
		t.Errorf("third run: %+v, want both unchanged", rep)
	}
	c := mustOpen(t, dir, "old")
	if d := searchOne(t, c, "mudflats"); d.Title != "Tidal Patterns of the Wadden Sea" {
		t.Errorf("title %q", d.Title)
	}
}
