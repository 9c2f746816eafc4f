package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
)

// MaxEPUBEntryBytes bounds one chapter (or package file) read from an EPUB.
const MaxEPUBEntryBytes = 16 << 20

// EPUBChapter is the text of one spine item, in reading order.
type EPUBChapter struct {
	Book  string // the book's title from its package document ("" if none)
	Href  string // the chapter's path inside the book
	Title string // the chapter page's own title or first heading
	Text  string
}

// EPUBPackage is what the package document (OPF) of a book says.
type EPUBPackage struct {
	Title string
	// Spine lists the chapter files in reading order, as paths inside the
	// zip (resolved against the package document's folder).
	Spine []string
}

// ParseEPUBContainer returns the package document's path from
// META-INF/container.xml.
func ParseEPUBContainer(data []byte) (string, error) {
	var c struct {
		Rootfiles []struct {
			FullPath  string `xml:"full-path,attr"`
			MediaType string `xml:"media-type,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := xml.Unmarshal(data, &c); err != nil {
		return "", fmt.Errorf("META-INF/container.xml: %w", err)
	}
	for _, r := range c.Rootfiles {
		if r.FullPath != "" && (r.MediaType == "" || strings.Contains(r.MediaType, "oebps-package")) {
			return r.FullPath, nil
		}
	}
	return "", errors.New("META-INF/container.xml names no package document")
}

// ParseEPUBPackage reads the title, manifest and spine of a package
// document found at opfPath.
func ParseEPUBPackage(data []byte, opfPath string) (EPUBPackage, error) {
	var p struct {
		Titles []string `xml:"metadata>title"`
		Items  []struct {
			ID        string `xml:"id,attr"`
			Href      string `xml:"href,attr"`
			MediaType string `xml:"media-type,attr"`
		} `xml:"manifest>item"`
		Refs []struct {
			IDRef  string `xml:"idref,attr"`
			Linear string `xml:"linear,attr"`
		} `xml:"spine>itemref"`
	}
	if err := xml.Unmarshal(data, &p); err != nil {
		return EPUBPackage{}, fmt.Errorf("%s: %w", opfPath, err)
	}
	out := EPUBPackage{}
	for _, t := range p.Titles {
		if t = CleanString(strings.TrimSpace(t)); t != "" {
			out.Title = t
			break
		}
	}
	hrefs := map[string]string{}
	for _, it := range p.Items {
		if strings.Contains(it.MediaType, "html") {
			hrefs[it.ID] = it.Href
		}
	}
	dir := path.Dir(opfPath)
	for _, r := range p.Refs {
		href, ok := hrefs[r.IDRef]
		if !ok || r.Linear == "no" {
			continue
		}
		if u, err := url.PathUnescape(href); err == nil {
			href = u
		}
		if i := strings.IndexByte(href, '#'); i >= 0 {
			href = href[:i]
		}
		out.Spine = append(out.Spine, path.Clean(path.Join(dir, href)))
	}
	if len(out.Spine) == 0 {
		return out, fmt.Errorf("%s: the spine lists no chapter", opfPath)
	}
	return out, nil
}

// ExtractEPUB reads an EPUB book and calls chapter for each spine item with
// text, numbered from 1 in reading order. It returns the book's title.
func ExtractEPUB(ctx context.Context, file string, chapter func(n int, ch EPUBChapter) error) (string, error) {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return "", fmt.Errorf("not an EPUB (zip) file: %w", err)
	}
	defer zr.Close()
	container, err := readZipEntry(&zr.Reader, "META-INF/container.xml")
	if err != nil {
		return "", fmt.Errorf("not an EPUB file: %w", err)
	}
	opfPath, err := ParseEPUBContainer(container)
	if err != nil {
		return "", err
	}
	opf, err := readZipEntry(&zr.Reader, opfPath)
	if err != nil {
		return "", err
	}
	pkg, err := ParseEPUBPackage(opf, opfPath)
	if err != nil {
		return "", err
	}
	n := 0
	for _, href := range pkg.Spine {
		if err := ctx.Err(); err != nil {
			return pkg.Title, err
		}
		page, err := readZipEntry(&zr.Reader, href)
		if err != nil {
			continue // a missing chapter file: keep the rest of the book
		}
		text, err := ExtractHTML(bytes.NewReader(page))
		if err != nil || strings.TrimSpace(text.Text) == "" {
			continue
		}
		n++
		if err := chapter(n, EPUBChapter{Book: pkg.Title, Href: href, Title: text.Title, Text: text.Text}); err != nil {
			return pkg.Title, err
		}
	}
	if n == 0 {
		return pkg.Title, errors.New("the EPUB has no readable chapter")
	}
	return pkg.Title, nil
}

// readZipEntry reads one entry, at most MaxEPUBEntryBytes.
func readZipEntry(zr *zip.Reader, name string) ([]byte, error) {
	f := zipEntry(zr, name)
	if f == nil {
		return nil, fmt.Errorf("%s is missing", name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxEPUBEntryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(b) > MaxEPUBEntryBytes {
		return nil, fmt.Errorf("%s is larger than %d MB", name, MaxEPUBEntryBytes>>20)
	}
	return b, nil
}
