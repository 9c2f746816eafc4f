// Package retrieval is prefrag's retrieval benchmark (`prefrag bench
// retrieval`): it reads public test collections (Vaswani/NPL, Cranfield) and
// multi-hop question sets whose paragraphs are pooled into small corpora,
// indexes the same documents with the product's Bleve corpus and, when built
// with the sqlite_fts5 tag, with SQLite FTS5 as the reference BM25, and
// reports quality (nDCG@10, recall@k, supporting-paragraph recall) and speed
// (index build rate and size, warm query latency) side by side.
package retrieval

import (
	"os"
	"path/filepath"
	"strings"
)

// Doc is one retrievable unit: an abstract or a paragraph.
type Doc struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Query is one query with its judged documents: grade > 0 is relevant, and
// the grade is the gain for graded nDCG.
type Query struct {
	ID   string
	Text string
	Rel  map[string]int
}

// Kind says how a dataset is scored.
type Kind int

const (
	// Collection: a test collection with relevance judgements (nDCG@10,
	// recall@100).
	Collection Kind = iota
	// Pool: paragraphs pooled from multi-hop questions; the supporting
	// paragraphs are each question's relevant set (recall@5, recall@10).
	Pool
)

func (k Kind) String() string {
	if k == Pool {
		return "pool"
	}
	return "collection"
}

// Dataset is documents and queries scored together.
type Dataset struct {
	Name    string
	Kind    Kind
	Docs    []Doc
	Queries []Query
	// Graded is set when the judgements have more than one relevance level.
	Graded bool
	// Notes say what was dropped or assumed while reading.
	Notes []string
}

// AvgWords is the mean number of words (title and text) per document.
func (d *Dataset) AvgWords() float64 {
	if len(d.Docs) == 0 {
		return 0
	}
	n := 0
	for _, doc := range d.Docs {
		n += len(strings.Fields(doc.Title)) + len(strings.Fields(doc.Text))
	}
	return float64(n) / float64(len(d.Docs))
}

// HasTitles reports whether any document has a title.
func (d *Dataset) HasTitles() bool {
	for _, doc := range d.Docs {
		if doc.Title != "" {
			return true
		}
	}
	return false
}

// FirstDocs keeps the first n documents of a collection, drops the judgements
// of the others and the queries left with no relevant document. n <= 0 or
// n >= len(Docs) keeps everything.
func (d *Dataset) FirstDocs(n int) {
	if n <= 0 || n >= len(d.Docs) {
		return
	}
	d.Docs = d.Docs[:n]
	kept := make(map[string]bool, n)
	for _, doc := range d.Docs {
		kept[doc.ID] = true
	}
	qs := d.Queries[:0]
	for _, q := range d.Queries {
		rel := make(map[string]int)
		for id, g := range q.Rel {
			if kept[id] {
				rel[id] = g
			}
		}
		if countRelevant(rel) > 0 {
			q.Rel = rel
			qs = append(qs, q)
		}
	}
	d.Queries = qs
}

// FindSharedData looks for the project's shared test data, a "shared/data"
// folder beside the repository, walking up from start. It returns "" when
// there is none (a user's machine).
func FindSharedData(start string) string {
	abs, err := filepath.Abs(start)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "data")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
