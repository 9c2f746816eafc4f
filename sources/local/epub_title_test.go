package local

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An EPUB chapter whose <title> is a file name (as converters write them)
// takes its first heading; a texinfo page's navigation lines are not text.
func TestEPUBChapterTitleFromHeadingAndTexinfoNav(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	book := filepath.Join(src, "birds.epub")
	f, err := os.Create(book)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range map[string]string{
		"mimetype":               "application/epub+zip",
		"META-INF/container.xml": `<container><rootfiles><rootfile full-path="book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"book.opf": `<package><metadata><title>Seabirds of the North</title></metadata>
<manifest><item id="a" href="ch01.xhtml" media-type="application/xhtml+xml"/><item id="b" href="index_split_003.html" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="a"/><itemref idref="b"/></spine></package>`,
		"ch01.xhtml":           `<html><head><title>ch01.xhtml</title></head><body><h1>Puffins</h1><p>Puffins nest in burrows on grassy cliffs.</p></body></html>`,
		"index_split_003.html": `<html><head><title>index_split_003.html</title></head><body><h2 class="chapter">Kittiwakes</h2><p>Kittiwakes build nests of mud and seaweed.</p></body></html>`,
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	f.Close()
	os.WriteFile(filepath.Join(src, "node.html"), []byte(`<html><head><title>Types (libffi)</title></head><body>
<div class="header"><p>Next: <a href="n.html">Type Example</a>, Previous: <a href="p.html">Size and Alignment</a>, Up: <a href="u.html">Types</a> &nbsp; [<a href="i.html">Index</a>]</p></div>
<h4>Arrays</h4><p>Arrays of marmots are passed as pointers.</p></body></html>`), 0o644)

	mustIndex(t, dir, "e", src)
	c := mustOpen(t, dir, "e")
	if d := searchOne(t, c, "puffins burrows"); d.Title != "Seabirds of the North — Puffins" {
		t.Errorf("chapter 1 title = %q", d.Title)
	}
	if d := searchOne(t, c, "kittiwakes seaweed"); d.Title != "Seabirds of the North — Kittiwakes" {
		t.Errorf("chapter 2 title = %q", d.Title)
	}
	d := searchOne(t, c, "marmots pointers")
	for _, nav := range []string{"Next:", "Previous:", "Type Example", "[Index]"} {
		if strings.Contains(d.Text, nav) {
			t.Errorf("navigation %q in the passage: %q", nav, d.Text)
		}
	}
}
