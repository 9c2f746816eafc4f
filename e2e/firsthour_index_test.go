package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `prefrag index PATH` without --corpus adds to the pinned corpus, as its
// help says; with none pinned it creates `default`, pins it and says so in
// one line.
func TestIndexWithoutCorpusUsesThePinnedOne(t *testing.T) {
	w := &world{t: t, home: t.TempDir()}
	dir := func(name, file, text string) string {
		d := filepath.Join(w.home, name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, file), []byte(text), 0o644)
		return d
	}
	papers := dir("papers", "a.md", "# Alpha\n\nThe alpha paper measures zebrafish.\n")
	more := dir("more", "b.md", "# Beta\n\nThe beta paper measures quokkas.\n")
	notes := dir("notes", "c.md", "# Gamma\n\nThe gamma note measures wombats.\n")
	corpora := func() map[string]bool {
		out, errOut, code := w.run("corpora", "--json")
		if code != 0 {
			t.Fatalf("corpora: %d %s", code, errOut)
		}
		pinned := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var c struct {
				Name   string `json:"name"`
				Pinned bool   `json:"pinned"`
			}
			if json.Unmarshal([]byte(l), &c) == nil && c.Name != "" {
				pinned[c.Name] = c.Pinned
			}
		}
		return pinned
	}

	if out, errOut, code := w.run("index", "--corpus", "papers", papers); code != 0 {
		t.Fatalf("index papers: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := w.run("index", more)
	if code != 0 {
		t.Fatalf("index without --corpus: %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "corpus papers:") {
		t.Errorf("index without --corpus did not add to the pinned corpus papers:\n%s", out)
	}
	if got := corpora(); len(got) != 1 || !got["papers"] {
		t.Errorf("corpora after `index PATH` = %v, want only papers, pinned", got)
	}
	if res, _, _ := w.run("search", "quokkas"); !strings.Contains(res, "Beta") {
		t.Errorf("the default search does not find what `index PATH` added:\n%s", res)
	}

	// None pinned (the user unpinned): `default` is created, pinned, and said so.
	if _, errOut, code := w.run("corpora", "unpin"); code != 0 {
		t.Fatalf("unpin: %s", errOut)
	}
	out, errOut, code = w.run("index", notes)
	if code != 0 {
		t.Fatalf("index with none pinned: %d\n%s%s", code, out, errOut)
	}
	if got := corpora(); !got["default"] || got["papers"] {
		t.Errorf("corpora after `index PATH` with none pinned = %v, want default created and pinned", got)
	}
	var said []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "pinned") {
			said = append(said, l)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "corpus default is pinned") {
		t.Errorf("want one line saying default was pinned, got %q in:\n%s", said, out)
	}
	if res, _, _ := w.run("search", "wombats"); !strings.Contains(res, "Gamma") {
		t.Errorf("the default search does not find the new pinned corpus's text:\n%s", res)
	}
}
