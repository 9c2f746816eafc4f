package local

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

func searchOne(t *testing.T, c *Corpus, q string) sources.Document {
	t.Helper()
	docs, err := c.Search(context.Background(), q, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Fatalf("Search(%q) found %d", q, len(docs))
	}
	return docs[0]
}

func TestJSONLIDsAndSplitting(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	long := strings.TrimSpace(strings.Repeat("Storms batter the northern coast every winter. ", 90)) // 630 words
	exact := strings.TrimSpace(strings.Repeat("word ", JSONLSplitWords))
	lines := []string{
		`{"id":"short","title":"Short","text":"A single passage about kelp forests."}`,
		fmt.Sprintf(`{"id":"long","title":"Long","text":%q,"url":"https://example.org/long"}`, long),
		fmt.Sprintf(`{"id":"edge","title":"Edge","text":%q}`, exact),
		`{"title":"No id","text":"A record without an id mentions walruses."}`,
		fmt.Sprintf(`{"title":"No id, long","text":%q}`, strings.ReplaceAll(long, "Storms", "Gales")),
	}
	path := filepath.Join(src, "c.jsonl")
	writeFiles(t, src, map[string]string{"c.jsonl": strings.Join(lines, "\n") + "\n"})
	rep := mustIndex(t, dir, "j", src)
	if rep.Documents != 5 || len(rep.Failed) != 0 {
		t.Fatalf("report %+v", rep)
	}
	got := allIDs(t, dir, "j")
	want := []string{"edge", "long#1", "long#2", path + ":4", path + ":5#1", path + ":5#2", "short"}
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ids = %v\nwant %v", got, want)
	}
	c := mustOpen(t, dir, "j")
	d := searchOne(t, c, "storms northern coast")
	if !strings.HasPrefix(d.ID, "long#") || d.Title != "Long" || d.URL != "https://example.org/long" || d.Locator != "long" {
		t.Errorf("split passage = %+v", d)
	}
	if n := len(strings.Fields(d.Text)); n < jsonlMinWords || n > JSONLSplitWords {
		t.Errorf("split passage has %d words", n)
	}
	d = searchOne(t, c, "walruses")
	offset := len(strings.Join(lines[:3], "\n")) + 1
	if d.ID != path+":4" || d.Locator != fmt.Sprintf("%s#%d", path, offset) {
		t.Errorf("record without id = %+v, want locator offset %d", d, offset)
	}
}

func TestTextSplitsIntoPassagesWithOffsets(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	var sb strings.Builder
	sb.WriteString("# Coastal Notes\n\n")
	var offsets []int
	for p := 0; p < 8; p++ {
		offsets = append(offsets, sb.Len())
		fmt.Fprintf(&sb, "Paragraph%d %s.\n\n", p, strings.TrimSpace(strings.Repeat("tide ", 119)))
	}
	writeFiles(t, src, map[string]string{"notes.md": sb.String()})
	path := filepath.Join(src, "notes.md")
	rep := mustIndex(t, dir, "t", src)
	if rep.Passages != 8 || rep.Documents != 1 {
		t.Fatalf("report %+v", rep)
	}
	c := mustOpen(t, dir, "t")
	for p := 1; p < 8; p++ {
		d := searchOne(t, c, fmt.Sprintf("paragraph%d", p))
		if d.Title != "Coastal Notes" || d.Locator != fmt.Sprintf("%s#%d", path, offsets[p]) {
			t.Errorf("paragraph %d: %s %q, want offset %d", p, d.Locator, d.Title, offsets[p])
		}
	}
	// The first passage starts at the heading.
	if d := searchOne(t, c, "paragraph0"); d.Locator != path+"#0" || d.ID != path+"#1" {
		t.Errorf("first passage %s %s", d.ID, d.Locator)
	}
}

func TestLatin1TextIsDecoded(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"fr.txt": "Le caf\xe9 cr\xe8me est tr\xe8s bon."})
	mustIndex(t, dir, "l", src)
	c := mustOpen(t, dir, "l")
	if d := searchOne(t, c, "café"); d.Text != "Le café crème est très bon." {
		t.Errorf("text = %q", d.Text)
	}
}

func TestHTMLDOCXAndPDFFiles(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{
		"page.html": `<html><head><title>Puffin Facts</title><script>var tracking="ignored"</script></head>
<body><nav>Home About</nav><main><p>Puffins dive to catch sand eels.</p></main><footer>footer text</footer></body></html>`,
		"untitled.htm": `<p>Gannets plunge from great heights.</p>`,
	})
	docx := filepath.Join(src, "memo.docx")
	writeDOCX(t, docx, "Seal Survey", "Grey seals haul out on the skerries.", "Counts rose this year.")
	pdfOK := false
	if _, err := exec.LookPath("pdftotext"); err == nil {
		writePDF(t, filepath.Join(src, "paper.pdf"), "Cormorants dry their wings", "Shags nest on cliffs")
		pdfOK = true
	}
	rep := mustIndex(t, dir, "f", src)
	if len(rep.Failed) != 0 {
		t.Fatalf("failures: %v", rep.Failed)
	}
	c := mustOpen(t, dir, "f")
	d := searchOne(t, c, "puffins")
	if d.Title != "Puffin Facts" || d.Text != "Puffins dive to catch sand eels." {
		t.Errorf("html passage = %+v", d)
	}
	for _, q := range []string{"tracking ignored", "footer", "Home About"} {
		if docs, _ := c.Search(context.Background(), q, 5); len(docs) != 0 {
			t.Errorf("%q found in boilerplate: %v", q, ids(docs))
		}
	}
	if d := searchOne(t, c, "gannets"); d.Title != "untitled" {
		t.Errorf("htm title = %q", d.Title)
	}
	d = searchOne(t, c, "grey seals skerries")
	if d.Title != "Seal Survey" || d.Text != "Grey seals haul out on the skerries.\n\nCounts rose this year." || d.Locator != docx+"#0" {
		t.Errorf("docx passage = %+v", d)
	}
	if pdfOK {
		pdf := filepath.Join(src, "paper.pdf")
		d = searchOne(t, c, "shags cliffs")
		if d.Locator != pdf+"#p2" || d.Title != "Cormorants dry their wings" || d.ID != pdf+"#2" {
			t.Errorf("pdf passage = %+v", d)
		}
		if d = searchOne(t, c, "cormorants"); d.Locator != pdf+"#p1" {
			t.Errorf("pdf page 1 = %+v", d)
		}
	} else {
		t.Log("pdftotext is not installed: PDF part skipped")
	}
}

func TestPDFWithoutPdftotextIsAFailure(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"x.pdf": "%PDF-1.4", "ok.txt": "fine"})
	rep := mustIndex(t, dir, "p", src)
	if len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Reason, "pdftotext") || rep.Indexed != 1 {
		t.Errorf("report %+v", rep)
	}
}

// writeDOCX writes a minimal Word file.
func writeDOCX(t *testing.T, path, title string, paragraphs ...string) {
	t.Helper()
	var body strings.Builder
	for _, p := range paragraphs {
		fmt.Fprintf(&body, `<w:p><w:r><w:t>%s</w:t></w:r></w:p>`, p)
	}
	files := map[string]string{
		"word/document.xml": `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`,
		"docProps/core.xml": `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` + title + `</dc:title></cp:coreProperties>`,
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writePDF writes a PDF with one line of text per page.
func writePDF(t *testing.T, path string, pages ...string) {
	t.Helper()
	writePDFTitled(t, path, "", pages...)
}

// writePDFTitled is writePDF with an information dictionary /Title when
// title is not "".
func writePDFTitled(t *testing.T, path, title string, pages ...string) {
	t.Helper()
	var b bytes.Buffer
	var offsets []int
	obj := func(s string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), s)
	}
	b.WriteString("%PDF-1.4\n")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, text := range pages {
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	info := ""
	if title != "" {
		obj(fmt.Sprintf("<< /Title (%s) /Producer (prefrag test) >>", title))
		info = fmt.Sprintf(" /Info %d 0 R", len(offsets))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, info, xref)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
