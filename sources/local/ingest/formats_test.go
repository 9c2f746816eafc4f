package ingest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		enc     Encoding
		errText string
	}{
		{"utf8 text", []byte("Hello, wörld — ok\n"), UTF8, ""},
		{"empty", nil, UTF8, ""},
		{"NUL byte", []byte("abc\x00def"), UTF8, "NUL"},
		{"png header", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), UTF8, "NUL"},
		{"control bytes", bytes.Repeat([]byte{1, 2, 3, 'a'}, 50), UTF8, "control bytes"},
		{"random high bytes", bytes.Repeat([]byte{0xff, 0xfe, 0x81, 'a'}, 50), UTF8, "not UTF-8"},
		{"latin-1 text", []byte("Caf\xe9 cr\xe8me br\xfbl\xe9e, tr\xe8s bien, and a long English sentence to go with it."), Windows1252, ""},
		{"rune cut at the end of the sample", []byte("abc \xc3"), UTF8, ""},
	}
	for _, tt := range tests {
		enc, err := Sniff(tt.data)
		if tt.errText == "" {
			if err != nil || enc != tt.enc {
				t.Errorf("%s: Sniff = %v, %v; want %v", tt.name, enc, err, tt.enc)
			}
			continue
		}
		var nt *NotTextError
		if !errors.As(err, &nt) || !strings.Contains(err.Error(), tt.errText) {
			t.Errorf("%s: Sniff error = %v, want it to mention %q", tt.name, err, tt.errText)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\twith tab\nand newline", "plain text\twith tab\nand newline"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"bell\x07 nul\x00 del\x7f cr\r", "bell nul del cr"},
		{"c1 \u0085\u009b controls", "c1  controls"},
		{"bidi \u202eevil\u202c \u2066x\u2069", "bidi evil x"},
		{"bad \xff utf8", "bad \ufffd utf8"},
		{"emoji 🚀 ok", "emoji 🚀 ok"},
	}
	for _, tt := range tests {
		if got := CleanString(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# Title\n\ntext", "Title"},
		{"intro\n\n## Second level ##\n", "Second level"},
		{"---\ntitle: \"Front matter\"\n---\n# Heading", "Front matter"},
		{"```\n# not a heading\n```\n# Real", "Real"},
		{"#hashtag\n####### seven\n", ""},
		{"no heading at all", ""},
		{"#   \x1b[1mBold\x1b[0m  title  ", "[1mBold[0m title"},
	}
	for _, tt := range tests {
		if got := MarkdownTitle([]byte(tt.in)); got != tt.want {
			t.Errorf("MarkdownTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseJSONLLine(t *testing.T) {
	tests := []struct {
		line    string
		want    Record
		errText string
	}{
		{`{"id":"d1","title":"T","text":"body","url":"https://x.org"}`, Record{ID: "d1", Title: "T", Text: "body", URL: "https://x.org"}, ""},
		{`{"text":"no id"}`, Record{Text: "no id"}, ""},
		{`{"id":42,"text":"numeric id"}`, Record{ID: "42", Text: "numeric id"}, ""},
		{`{"id":1.5e3,"text":"float id"}`, Record{ID: "1.5e3", Text: "float id"}, ""},
		{`{"id":"p","contents":"pyserini layout"}`, Record{ID: "p", Text: "pyserini layout"}, ""},
		{`{"id":"c","title":"a\u001b[2Jb","text":"x\u0000y"}`, Record{ID: "c", Title: "a[2Jb", Text: "xy"}, ""},
		{"  \t\r\n", Record{}, "blank line"},
		{`not json`, Record{}, "not a JSON object"},
		{`["an","array"]`, Record{}, "not a JSON object"},
		{`{"title":"only a title"}`, Record{}, `no "text"`},
		{`{"text":"   "}`, Record{}, `no "text"`},
		{`{"text":5}`, Record{}, `"text" is not a string`},
		{`{"id":{"a":1},"text":"x"}`, Record{}, `"id" is neither`},
		{`{"id":"` + strings.Repeat("x", MaxIDLength+1) + `","text":"x"}`, Record{}, "longer than"},
		{`{"text":"x"} trailing`, Record{}, "not a JSON object"},
	}
	for _, tt := range tests {
		got, err := ParseJSONLLine([]byte(tt.line))
		if tt.errText != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("ParseJSONLLine(%.40q) error = %v, want %q", tt.line, err, tt.errText)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseJSONLLine(%.40q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
		}
	}
}

func FuzzParseJSONLLine(f *testing.F) {
	f.Add([]byte(`{"id":"d1","title":"T","text":"body","url":"u"}`))
	f.Add([]byte(`{"id":7,"contents":"x"}`))
	f.Add([]byte(`{"text":"\u001b]0;pwned\u0007"}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := ParseJSONLLine(line)
		if err != nil {
			return
		}
		for _, s := range []string{rec.ID, rec.Title, rec.Text, rec.URL} {
			if !utf8.ValidString(s) || CleanString(s) != s {
				t.Fatalf("field not clean: %q", s)
			}
		}
		if strings.TrimSpace(rec.Text) == "" || len(rec.ID) > MaxIDLength || strings.ContainsAny(rec.ID, "\n\t") {
			t.Fatalf("bad record %+v", rec)
		}
	})
}

const page = `<!DOCTYPE html>
<html><head><title>  The   Page Title </title>
<style>body { color: red }</style><script>var secret = "do not index";</script></head>
<body>
<header><h1>Site banner</h1></header>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<main>
<article>
<h1>Article heading</h1>
<p>First paragraph with <b>bold</b> and <i>italic</i> words &amp; an entity.</p>
<p>Second<br>line after a break.</p>
<pre>  keep   this
  layout</pre>
<ul><li>item one</li><li>item two</li></ul>
<svg><title>icon title</title><text>svg text</text></svg>
<table><tr><td>cell a</td><td>cell b</td></tr></table>
</article>
</main>
<aside>Related links</aside>
<footer>Copyright footer</footer>
<form><button>Subscribe</button></form>
</body></html>`

func TestExtractHTML(t *testing.T) {
	got, err := ExtractHTML(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "The Page Title" {
		t.Errorf("title = %q", got.Title)
	}
	want := "Article heading\n\nFirst paragraph with bold and italic words & an entity.\n\nSecond\nline after a break.\n\n  keep   this\n  layout\n\nitem one\n\nitem two\n\ncell a cell b"
	if got.Text != want {
		t.Errorf("text =\n%q\nwant\n%q", got.Text, want)
	}
}

func TestExtractHTMLWithoutMain(t *testing.T) {
	tests := []struct {
		name, html, title, text string
	}{
		{"body text, h1 as title", `<html><body><h1>Heading</h1><div>Some <span>inline</span> text</div><script>x()</script></body></html>`, "Heading", "Heading\n\nSome inline text"},
		{"fragment without tags", `plain words only`, "", "plain words only"},
		{"unclosed skipped element", `<p>kept</p><nav>menu <p>lost`, "", "kept"},
		{"tiny main falls back to body", `<main>hi</main><div>` + strings.Repeat("body words ", 20) + `</div>`, "", "hi\n\n" + strings.TrimSpace(strings.Repeat("body words ", 20))},
		{"role main", `<div role="main"><p>the content</p></div><div>other</div>`, "", "the content"},
		{"escape sequences removed", "<p>a\x1b[31mb</p>", "", "a[31mb"},
	}
	for _, tt := range tests {
		got, err := ExtractHTML(strings.NewReader(tt.html))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got.Title != tt.title || got.Text != tt.text {
			t.Errorf("%s: got %q / %q, want %q / %q", tt.name, got.Title, got.Text, tt.title, tt.text)
		}
	}
}

func FuzzExtractHTML(f *testing.F) {
	f.Add(page)
	f.Add(`<p>a<br/>b</p><script>`)
	f.Add(`<title>x</title><svg><title>y</title></svg><main role=main>z`)
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := ExtractHTML(strings.NewReader(doc))
		if err != nil {
			return
		}
		for _, s := range []string{got.Title, got.Text} {
			if !utf8.ValidString(s) || CleanString(s) != s {
				t.Fatalf("output not clean: %q", s)
			}
		}
		if strings.Contains(got.Text, "\n\n\n") {
			t.Fatalf("more than one blank line in %q", got.Text)
		}
	})
}

// makeDOCX writes a minimal Word file.
func makeDOCX(t *testing.T, path, title string, paragraphs ...string) {
	t.Helper()
	var body strings.Builder
	for _, p := range paragraphs {
		fmt.Fprintf(&body, `<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, p)
	}
	doc := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() +
		`<w:p><w:r><w:t>Tab</w:t><w:tab/><w:t>bed</w:t><w:br/><w:t>broken</w:t></w:r><w:r><w:delText>deleted</w:delText></w:r></w:p><w:p/></w:body></w:document>`
	core := `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` + title + `</dc:title></cp:coreProperties>`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range map[string]string{"word/document.xml": doc, "docProps/core.xml": core, "[Content_Types].xml": "<Types/>"} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExtractDOCX(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.docx")
	makeDOCX(t, path, "Quarterly  Report", "First paragraph.", "Second &amp; last.")
	var out bytes.Buffer
	if err := ExtractDOCX(context.Background(), path, &out); err != nil {
		t.Fatal(err)
	}
	if want := "First paragraph.\n\nSecond & last.\n\nTab\tbed\nbroken\n\n"; out.String() != want {
		t.Errorf("text = %q, want %q", out.String(), want)
	}
	if got := DOCXTitle(path); got != "Quarterly Report" {
		t.Errorf("title = %q", got)
	}
	bad := filepath.Join(t.TempDir(), "bad.docx")
	if err := os.WriteFile(bad, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ExtractDOCX(context.Background(), bad, &out); err == nil || !strings.Contains(err.Error(), "not a .docx") {
		t.Errorf("bad docx error = %v", err)
	}
	if DOCXTitle(bad) != "" {
		t.Errorf("title of a bad file")
	}
}

// MakePDF writes a small valid PDF with one page per text (Helvetica, one
// line each), computing the cross-reference offsets.
func makePDF(t *testing.T, path string, pages ...string) {
	t.Helper()
	var b bytes.Buffer
	offsets := []int{}
	obj := func(s string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), s)
	}
	b.WriteString("%PDF-1.4\n")
	n := len(pages)
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, text := range pages {
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExtractPDF(t *testing.T) {
	if _, err := exec.LookPath(PDFToText); err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	path := filepath.Join(t.TempDir(), "paper.pdf")
	makePDF(t, path, "First page about lighthouses", "", "Third page about harbours")
	var got []string
	err := ExtractPDF(context.Background(), path, func(n int, text []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", n, strings.TrimSpace(string(text))))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[1:First page about lighthouses 3:Third page about harbours]"; fmt.Sprint(got) != want {
		t.Errorf("pages = %v, want %s", got, want)
	}
	bad := filepath.Join(t.TempDir(), "bad.pdf")
	if err := os.WriteFile(bad, []byte("%PDF-1.4 garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ExtractPDF(context.Background(), bad, func(int, []byte) error { return nil }); err == nil || !strings.Contains(err.Error(), "pdftotext could not read") {
		t.Errorf("bad pdf error = %v", err)
	}
}

func TestExtractPDFWithoutTool(t *testing.T) {
	old := PDFToText
	PDFToText = "prefrag-no-such-pdftotext"
	defer func() { PDFToText = old }()
	err := ExtractPDF(context.Background(), "x.pdf", func(int, []byte) error { return nil })
	if !errors.Is(err, ErrNoPDFTool) || !strings.Contains(err.Error(), "poppler-utils") {
		t.Errorf("error = %v", err)
	}
}

func TestReadPagesSplitsOnFormFeed(t *testing.T) {
	in := "page one\fpage two\f\f" + strings.Repeat("x", 100<<10) + "\f"
	var got []string
	err := readPagesFrom(in, func(n int, text []byte) error {
		got = append(got, fmt.Sprintf("%d:%d", n, len(text)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[1:8 2:8 4:102400]"; fmt.Sprint(got) != want {
		t.Errorf("pages = %v, want %s", got, want)
	}
}

// readPagesFrom runs readPages over a string with a tiny buffer, so pages
// span many reads.
func readPagesFrom(s string, page func(int, []byte) error) error {
	return readPages(bufio.NewReaderSize(strings.NewReader(s), 16), page)
}

func FuzzDOCXText(f *testing.F) {
	f.Add([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hi</w:t><w:tab/></w:r></w:p></w:body></w:document>`))
	f.Add([]byte(`<a><b>`))
	f.Fuzz(func(t *testing.T, xmlDoc []byte) {
		var out bytes.Buffer
		if err := docxText(context.Background(), bytes.NewReader(xmlDoc), &out); err != nil {
			return
		}
		if out.Len() > len(xmlDoc)*4+16 {
			t.Fatalf("%d bytes of text from %d bytes of XML", out.Len(), len(xmlDoc))
		}
	})
}

func FuzzSniffAndMarkdownTitle(f *testing.F) {
	f.Add([]byte("# Title\n\ntext"))
	f.Add([]byte("---\ntitle: x\n---\n"))
	f.Add([]byte("\x89PNG\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Sniff(data)
		title := MarkdownTitle(data)
		if !utf8.ValidString(title) || CleanString(title) != title || strings.ContainsAny(title, "\n\t") {
			t.Fatalf("title not clean: %q", title)
		}
	})
}

func TestMarkdownFrontMatterTitleIsOneLine(t *testing.T) {
	if got := MarkdownTitle([]byte("---\ntitle: a\tb  c\n---\n")); got != "a b c" {
		t.Errorf("title = %q", got)
	}
}
