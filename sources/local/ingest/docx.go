package ingest

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxDOCXXMLBytes bounds the uncompressed document.xml read (zip bombs).
const MaxDOCXXMLBytes = 512 << 20

const (
	wordNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	dcNS   = "http://purl.org/dc/elements/1.1/"
)

// ExtractDOCX writes the text of a Word .docx file to w, paragraphs
// separated by blank lines. The XML is streamed, never held whole.
func ExtractDOCX(ctx context.Context, path string, w io.Writer) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("not a .docx (zip) file: %w", err)
	}
	defer zr.Close()
	doc := zipEntry(&zr.Reader, "word/document.xml")
	if doc == nil {
		return errors.New("not a .docx file: word/document.xml is missing")
	}
	rc, err := doc.Open()
	if err != nil {
		return fmt.Errorf("reading word/document.xml: %w", err)
	}
	defer rc.Close()
	lr := &io.LimitedReader{R: rc, N: MaxDOCXXMLBytes + 1}
	if err := docxText(ctx, lr, w); err != nil {
		if lr.N <= 0 {
			return fmt.Errorf("word/document.xml is larger than %d MB", MaxDOCXXMLBytes>>20)
		}
		return err
	}
	return nil
}

// DOCXTitle returns the title in a .docx file's properties, "" when it has
// none, it names nothing (see MetadataTitle) or cannot be read.
func DOCXTitle(path string) string {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return ""
	}
	defer zr.Close()
	if core := zipEntry(&zr.Reader, "docProps/core.xml"); core != nil {
		return MetadataTitle(docxTitle(core))
	}
	return ""
}

func zipEntry(zr *zip.Reader, name string) *zip.File {
	for _, f := range zr.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// docxText streams the paragraphs of a WordprocessingML body to w.
func docxText(ctx context.Context, r io.Reader, w io.Writer) error {
	dec := xml.NewDecoder(r)
	inText := false
	wrote := false // the current paragraph has text
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("word/document.xml: %w", err)
		}
		var out string
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != wordNS {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				out = "\t"
			case "br", "cr":
				out = "\n"
			}
		case xml.EndElement:
			if t.Name.Space != wordNS {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if wrote {
					out = "\n\n"
					wrote = false
				}
			}
		case xml.CharData:
			if inText {
				out = string(t)
			}
		}
		if out != "" {
			if _, err := io.WriteString(w, out); err != nil {
				return err
			}
			if out != "\n\n" {
				wrote = true
			}
		}
	}
}

func docxTitle(f *zip.File) string {
	rc, err := f.Open()
	if err != nil {
		return ""
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, 1<<20))
	in := false
	var sb strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			in = t.Name.Space == dcNS && t.Name.Local == "title"
		case xml.CharData:
			if in {
				sb.Write(t)
			}
		case xml.EndElement:
			if in {
				return strings.Join(strings.Fields(CleanString(sb.String())), " ")
			}
		}
	}
}
