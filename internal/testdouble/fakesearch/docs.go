package fakesearch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
)

// Doc is one searchable document, as in a JSON Lines file
// {"title", "text", "url"}; other fields are ignored.
type Doc struct {
	Title string `json:"title"`
	Text  string `json:"text"`
	// URL may be empty: the server then serves the document itself at
	// /doc/<n>.
	URL string `json:"url,omitempty"`
}

// ReadDocs reads JSON Lines documents, skipping blank lines. A line that
// is not a JSON object is an error naming its line number.
func ReadDocs(r io.Reader) ([]Doc, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	var docs []Doc
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var d Doc
		if err := json.Unmarshal(line, &d); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return docs, nil
}

// Hit is a ranked document.
type Hit struct {
	Doc
	// Index is the document's position in Options.Docs.
	Index int
	// Overlap is how many distinct query terms the document contains.
	Overlap int
}

// Rank orders docs by how many distinct query terms (lower-cased runs of
// letters and digits) appear in their title or text, ties in document
// order, documents without any query term left out, at most n hits.
func Rank(docs []Doc, query string, n int) []Hit {
	terms := uniqueTerms(query)
	var hits []Hit
	for i, d := range docs {
		have := make(map[string]bool)
		for _, t := range words(d.Title + " " + d.Text) {
			have[t] = true
		}
		overlap := 0
		for _, t := range terms {
			if have[t] {
				overlap++
			}
		}
		if overlap > 0 {
			hits = append(hits, Hit{Doc: d, Index: i, Overlap: overlap})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].Overlap > hits[b].Overlap })
	if n > 0 && len(hits) > n {
		hits = hits[:n]
	}
	return hits
}

func uniqueTerms(s string) []string {
	seen := make(map[string]bool)
	var out []string
	for _, t := range words(s) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// words splits s into lower-cased runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// snippet cuts text to about n characters at a word boundary (n <= 0:
// all of it).
func snippet(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if n <= 0 || len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], ' ')
	if cut <= 0 {
		cut = n
	}
	for cut > 0 && !isRuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + " ..."
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
