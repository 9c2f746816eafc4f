package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func decoded(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The mapping of the issue: structuredContent first, else JSON inside the
// text, else resource links, else the whole text; lists under results,
// documents, items or hits; title/name, url/href/link/uri,
// text/content/snippet/body, id.
func TestHits(t *testing.T) {
	memory := `{"entities": [{"name": "Ada Varga", "entityType": "person", "observations": ["leads Project Heron", "joined in 2021"]}],
		"relations": [{"from": "Ada Varga", "to": "Project Heron", "relationType": "leads"}]}`
	cases := []struct {
		name string
		res  *mcp.CallToolResult
		want []hit
	}{
		{"structured results", &mcp.CallToolResult{StructuredContent: decoded(t, `{"results": [{"id": 7, "title": "A", "url": "https://a", "snippet": "aa"}]}`)},
			[]hit{{ID: "7", Title: "A", URL: "https://a", Text: "aa"}}},
		{"structured wins over text", &mcp.CallToolResult{StructuredContent: decoded(t, `{"hits": [{"name": "S", "body": "from structured"}]}`),
			Content: []mcp.Content{&mcp.TextContent{Text: `{"hits": [{"name": "T", "body": "from text"}]}`}}},
			[]hit{{Title: "S", Text: "from structured"}}},
		{"JSON in text, documents, href and content", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"documents": [{"title": "D", "href": "https://d", "content": "dd"}]}`}}},
			[]hit{{Title: "D", URL: "https://d", Text: "dd"}}},
		{"a bare array, link and items of strings", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `[{"title": "L", "link": "https://l", "text": "ll"}, "plain note"]`}}},
			[]hit{{Title: "L", URL: "https://l", Text: "ll"}, {Text: "plain note"}}},
		{"the memory server's graph: its entities, fields as text", &mcp.CallToolResult{StructuredContent: decoded(t, memory)},
			[]hit{{Title: "Ada Varga", Text: "entityType: person\nobservations: leads Project Heron; joined in 2021"}}},
		{"resource links", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///kb/a.md", Name: "a.md", Description: "about a"}, &mcp.ResourceLink{URI: "file:///kb/b.md", Title: "B"}}},
			[]hit{{ID: "file:///kb/a.md", Title: "a.md", URL: "file:///kb/a.md", Text: "about a"}, {ID: "file:///kb/b.md", Title: "B", URL: "file:///kb/b.md", Bare: true}}},
		{"plain text is one result", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Heron is led by Ada."}, &mcp.TextContent{Text: "It ships in 2027."}}},
			[]hit{{Text: "Heron is led by Ada.\n\nIt ships in 2027."}}},
		{"ids and titles only are bare", &mcp.CallToolResult{StructuredContent: decoded(t, `{"results": [{"id": "kb-1", "title": "Heron"}]}`)},
			[]hit{{ID: "kb-1", Title: "Heron", Bare: true}}},
		{"nested content blocks", &mcp.CallToolResult{StructuredContent: decoded(t, `{"items": [{"title": "N", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}]}`)},
			[]hit{{Title: "N", Text: "one\ntwo"}}},
		{"nothing", &mcp.CallToolResult{}, nil},
		// An empty list of results is no result, never its JSON as a
		// passage (the memory server's answer to a search that found
		// nothing).
		{"the memory server found nothing", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"entities": [], "relations": []}`}}}, nil},
		{"structured: an empty results list", &mcp.CallToolResult{StructuredContent: decoded(t, `{"results": []}`),
			Content: []mcp.Content{&mcp.TextContent{Text: "No results found."}}}, nil},
		{"an empty array", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `[]`}}}, nil},
		{"an empty hits list beside a count", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"total": 0, "hits": []}`}}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := outputOf(c.res).hits()
			if len(got) != len(c.want) {
				t.Fatalf("%d hits %+v, want %+v", len(got), got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("hit %d = %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

// The text of any tool answers is outside text: it never panics, and
// every hit it reads has something to show.
func FuzzHits(f *testing.F) {
	f.Add(`{"results": [{"id": 1, "title": "a", "text": "b"}]}`)
	f.Add(`{"entities": [{"name": "x", "observations": ["y"]}], "relations": []}`)
	f.Add(`[{"content": [{"text": "t"}]}, "s", 3, null]`)
	f.Add(`not json at all`)
	f.Fuzz(func(t *testing.T, text string) {
		for _, h := range outputOf(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}).hits() {
			if h.Text == "" && h.Title == "" && h.URL == "" && h.ID == "" {
				t.Errorf("empty hit from %q", text)
			}
			if !h.Bare && strings.TrimSpace(h.Text) == "" && h.URL == "" {
				t.Errorf("hit %+v has no text but is not bare", h)
			}
		}
	})
}
