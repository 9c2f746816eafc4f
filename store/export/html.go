package export

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"sync"

	"github.com/prefrag/prefrag/internal/exportmark"
	"github.com/prefrag/prefrag/store"
)

// The HTML report: one self-contained page per session or thread that a
// colleague opens in any browser, offline. The page is rendered from
// embedded template files (templates/report.html.tmpl and its style sheet)
// by html/template, so every stored text — model output, documents, web
// results, notes — is escaped where it lands. The one exception is the
// model's Markdown (answers, claims), which html_markdown.go renders to
// HTML itself: elements of a fixed list, http(s) links only, every text
// escaped, never an image. A Content-Security-Policy meta tag forbids scripts, frames
// and every remote load, the styles are inline, and the only links to
// elsewhere are plain http(s) links to web sources. Collapsible sections
// are <details>: nothing needs a script to be read.

//go:embed templates/report.html.tmpl templates/report.css
var htmlFiles embed.FS

// contentPolicy is the page's Content-Security-Policy: nothing may load or
// run — no script, frame, image, font, connection or form target — but the
// inline style sheet.
const contentPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"

// generator names what wrote the page (a <meta name="generator">).
const generator = "prefrag session export"

var htmlTemplate = sync.OnceValues(func() (*template.Template, error) {
	css, err := htmlFiles.ReadFile("templates/report.css")
	if err != nil {
		return nil, err
	}
	return template.New("report.html.tmpl").Funcs(template.FuncMap{
		// style is the embedded style sheet: a file of this package, never
		// stored text.
		"style": func() template.CSS { return template.CSS(css) },
	}).ParseFS(htmlFiles, "templates/report.html.tmpl")
})

// HTML writes recs as one self-contained HTML page: one session (or
// thread) per page as a rule; several sessions given at once share a page,
// one after the other (Save writes one file per session instead).
func HTML(w io.Writer, recs ...*store.Record) error {
	t, err := htmlTemplate()
	if err != nil {
		return fmt.Errorf("html export template: %w", err)
	}
	// The export mark follows the doctype (html/template drops the
	// comments of a template, so it is written here).
	if _, err := io.WriteString(w, htmlHead()); err != nil {
		return err
	}
	return t.Execute(w, newHTMLPage(recs))
}

// htmlHead opens the page: the doctype, then the export mark (internal/
// exportmark) that keeps `prefrag index` from taking the page in.
func htmlHead() string {
	return "<!DOCTYPE html>\n" + exportmark.Comment + "\n"
}
