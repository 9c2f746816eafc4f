// Package guide is prefrag's user guide, embedded in the binary: the TUI
// offers to index it as corpus "guide" on first run, so a first question
// can be asked before the user has indexed anything of their own, and it
// is real documentation of the program.
package guide

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed *.md
var files embed.FS

// order is the reading order of the pages.
var order = []string{
	"getting-started.md",
	"method.md",
	"keys.md",
	"corpora.md",
	"web-policy.md",
	"sessions.md",
	"configuration.md",
	"troubleshooting.md",
}

// Page is one page of the guide.
type Page struct {
	// Name is the file name, e.g. "keys.md".
	Name string
	// Title is the page's first heading.
	Title string
	// Markdown is the whole page.
	Markdown string
}

// FS returns the guide's Markdown files.
func FS() fs.FS { return files }

// Pages returns every page in reading order.
func Pages() []Page {
	out := make([]Page, 0, len(order))
	for _, name := range order {
		b, err := files.ReadFile(name)
		if err != nil {
			// The embed pattern and the order list are checked together by
			// the tests; a missing page is a build mistake.
			panic(fmt.Sprintf("guide: %s is not embedded", name))
		}
		out = append(out, Page{Name: name, Title: title(string(b)), Markdown: string(b)})
	}
	return out
}

// title is the text of the first "# " heading.
func title(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if t, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// WriteTo writes the pages as Markdown files into dir (created if needed)
// and returns their paths, for an ingest that reads files. File names are
// stable, so writing again over an indexed copy updates it in place.
func WriteTo(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("guide: %w", err)
	}
	var paths []string
	for _, p := range Pages() {
		path := filepath.Join(dir, p.Name)
		if old, err := os.ReadFile(path); err == nil && string(old) == p.Markdown {
			paths = append(paths, path)
			continue
		}
		if err := os.WriteFile(path, []byte(p.Markdown), 0o644); err != nil {
			return nil, fmt.Errorf("guide: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
