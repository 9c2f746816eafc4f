package local

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"
)

func TestEPUBBook(t *testing.T) {
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
<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="b.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="a"/><itemref idref="b"/></spine></package>`,
		"a.xhtml": `<html><head><title>Puffins</title></head><body><p>Puffins nest in burrows on grassy cliffs.</p></body></html>`,
		"b.xhtml": `<html><body><p>Kittiwakes build nests of mud and seaweed.</p></body></html>`,
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	f.Close()
	os.WriteFile(filepath.Join(src, "fake.epub"), []byte("not a book"), 0o644)

	rep := mustIndex(t, dir, "e", src)
	if len(rep.Failed) != 1 || filepath.Base(rep.Failed[0].Path) != "fake.epub" {
		t.Fatalf("failures = %v", rep.Failed)
	}
	c := mustOpen(t, dir, "e")
	d := searchOne(t, c, "puffins burrows")
	if d.Title != "Seabirds of the North — Puffins" || d.Locator != book+"#ch1" {
		t.Errorf("chapter 1 passage = %+v", d)
	}
	d = searchOne(t, c, "kittiwakes seaweed")
	if d.Title != "Seabirds of the North" || d.Locator != book+"#ch2" {
		t.Errorf("chapter 2 passage = %+v", d)
	}
	if rep.Documents != 1 {
		t.Errorf("documents = %d, want the book counted once", rep.Documents)
	}
}
