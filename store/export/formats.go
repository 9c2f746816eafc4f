package export

import (
	"fmt"
	"io"
	"strings"

	"github.com/prefrag/prefrag/internal/exportmark"
	"github.com/prefrag/prefrag/store"
)

// Format is one export format, a row of Formats.
type Format struct {
	// Name is the value of `sessions export --format` and the label of the
	// workspace's format button.
	Name string
	// Ext is the file extension, dot included (".pairs.jsonl").
	Ext string
	// Help says in a few words what the file holds; `sessions export
	// --help` and the export dialog show it.
	Help string
	// PerSession: several sessions exported to a path are written one file
	// each into a folder (Save); otherwise they share one file. To stdout
	// they always share one stream.
	PerSession bool
	// Write renders recs, the export mark (internal/exportmark) included,
	// which keeps `prefrag index` from taking the file in.
	Write func(w io.Writer, recs ...*store.Record) error
}

// Names accepted by `sessions export --format`.
const (
	FormatMarkdown = "md"
	FormatJSON     = "json"
	FormatJSONL    = "jsonl"
	FormatPairs    = "pairs"
	FormatHTML     = "html"
)

// Formats is the export-format table: the command line (`sessions export
// --format`, its help and shell completion) and the workspace's export
// dialog offer these, in this order. A new format is its writer and one
// row here.
var Formats = []Format{
	{Name: FormatMarkdown, Ext: ".md", Help: "a readable report", Write: markdownDocuments},
	{Name: FormatJSON, Ext: ".json", Help: "the session and its events", Write: JSON},
	{Name: FormatJSONL, Ext: ".jsonl", Help: "one line per session", Write: JSONL},
	{Name: FormatPairs, Ext: ".pairs.jsonl", Help: "one line per judge decision, with your verdicts", Write: PreferencePairs},
	{Name: FormatHTML, Ext: ".html", Help: "a page to hand on, opens offline in any browser", PerSession: true, Write: HTML},
}

// LookupFormat returns the row of Formats named name.
func LookupFormat(name string) (Format, bool) {
	for _, f := range Formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// FormatNames are the names of Formats, in order.
func FormatNames() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = f.Name
	}
	return names
}

// Write writes recs in format (a name of Formats).
func Write(w io.Writer, format string, recs ...*store.Record) error {
	f, ok := LookupFormat(format)
	if !ok {
		return fmt.Errorf("%w %q (one of %s)", ErrFormat, format, strings.Join(FormatNames(), ", "))
	}
	return f.Write(w, recs...)
}

// markdownDocuments writes recs as Markdown documents after the export
// mark (a comment on the first line), separated by a horizontal rule.
func markdownDocuments(w io.Writer, recs ...*store.Record) error {
	if _, err := io.WriteString(w, exportmark.Comment+"\n\n"); err != nil {
		return err
	}
	for i, rec := range recs {
		if i > 0 {
			if _, err := io.WriteString(w, "\n---\n\n"); err != nil {
				return err
			}
		}
		if err := Markdown(w, rec); err != nil {
			return err
		}
	}
	return nil
}
