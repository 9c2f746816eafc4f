package ingest

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeEPUB builds a small book: a package document in OEBPS/, three
// chapters in spine order (one of them non-linear) and a stylesheet.
func writeEPUB(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "book.epub")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	files := []struct{ name, body string }{
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
		{"OEBPS/content.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Acids and Bases</dc:title></metadata>
<manifest><item id="c2" href="text/ch%202.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/><item id="n" href="notes.xhtml" media-type="application/xhtml+xml"/><item id="css" href="style.css" media-type="text/css"/></manifest>
<spine><itemref idref="c1"/><itemref idref="n" linear="no"/><itemref idref="c2"/><itemref idref="css"/></spine></package>`},
		{"OEBPS/text/ch1.xhtml", `<html><head><title>The pH scale</title><style>p{}</style></head><body><h1>The pH scale</h1><p>Sørensen introduced the pH scale in 1909 at the Carlsberg Laboratory.</p></body></html>`},
		{"OEBPS/text/ch 2.xhtml", `<html><body><h1>Enzymes</h1><p>Enzyme activity depends on acidity.</p><script>alert(1)</script></body></html>`},
		{"OEBPS/notes.xhtml", `<html><body><p>Non-linear footnotes.</p></body></html>`},
		{"OEBPS/style.css", `p { color: red }`},
	}
	for _, fl := range files {
		w, err := zw.Create(fl.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(fl.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func TestExtractEPUB(t *testing.T) {
	p := writeEPUB(t, t.TempDir())
	var got []EPUBChapter
	title, err := ExtractEPUB(context.Background(), p, func(n int, ch EPUBChapter) error {
		if n != len(got)+1 {
			t.Errorf("chapter number %d after %d chapters", n, len(got))
		}
		got = append(got, ch)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if title != "Acids and Bases" || len(got) != 2 {
		t.Fatalf("title %q, %d chapters: %+v", title, len(got), got)
	}
	if got[0].Href != "OEBPS/text/ch1.xhtml" || got[0].Title != "The pH scale" || !strings.Contains(got[0].Text, "Sørensen introduced the pH scale") || got[0].Book != "Acids and Bases" {
		t.Errorf("chapter 1 = %+v", got[0])
	}
	if got[1].Href != "OEBPS/text/ch 2.xhtml" || strings.Contains(got[1].Text, "alert") || !strings.Contains(got[1].Text, "acidity") {
		t.Errorf("chapter 2 = %+v", got[1])
	}
}

func TestExtractEPUBRefusesNonBooks(t *testing.T) {
	dir := t.TempDir()
	notZip := filepath.Join(dir, "x.epub")
	os.WriteFile(notZip, []byte("plain text"), 0o644)
	noop := func(int, EPUBChapter) error { return nil }
	if _, err := ExtractEPUB(context.Background(), notZip, noop); err == nil || !strings.Contains(err.Error(), "not an EPUB") {
		t.Errorf("plain file: %v", err)
	}
	zipOnly := filepath.Join(dir, "z.epub")
	f, _ := os.Create(zipOnly)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("readme.txt")
	w.Write([]byte("hi"))
	zw.Close()
	f.Close()
	if _, err := ExtractEPUB(context.Background(), zipOnly, noop); err == nil || !strings.Contains(err.Error(), "container.xml") {
		t.Errorf("zip without container: %v", err)
	}
}

func FuzzParseEPUBPackage(f *testing.F) {
	f.Add([]byte(`<container><rootfiles><rootfile full-path="a/b.opf"/></rootfiles></container>`),
		[]byte(`<package><metadata><title>T</title></metadata><manifest><item id="a" href="x.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>`))
	f.Add([]byte("<"), []byte("<package><spine><itemref idref=\"zz\"/></spine></package>"))
	f.Fuzz(func(t *testing.T, container, opf []byte) {
		p, err := ParseEPUBContainer(container)
		if err != nil {
			p = "OEBPS/content.opf"
		}
		pkg, err := ParseEPUBPackage(opf, p)
		if err != nil {
			return
		}
		for _, s := range pkg.Spine {
			if s == "" || strings.Contains(s, "#") {
				t.Fatalf("bad spine entry %q", s)
			}
		}
	})
}
