package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hit is one search result before it becomes a passage.
type hit struct {
	ID, Title, URL, Text string
	// Bare is set when the result carried no text of its own (only an id,
	// a title or an address): a fetch tool may supply it.
	Bare bool
}

// toolOutput is what a tool call returned, in the parts the mapping reads.
type toolOutput struct {
	structured any
	texts      []string
	links      []hit
}

// outputOf splits a tool result into its parts.
func outputOf(res *mcp.CallToolResult) toolOutput {
	out := toolOutput{structured: res.StructuredContent}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out.texts = append(out.texts, c.Text)
		case *mcp.ResourceLink:
			title := c.Title
			if title == "" {
				title = c.Name
			}
			out.links = append(out.links, hit{ID: c.URI, Title: title, URL: c.URI, Text: c.Description, Bare: c.Description == ""})
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil && r.Text != "" {
				out.links = append(out.links, hit{ID: r.URI, Title: r.URI, URL: r.URI, Text: r.Text})
			}
		}
	}
	return out
}

// Keys a result list and a result's fields are read from, in order.
var (
	listKeys  = []string{"results", "documents", "items", "hits"}
	titleKeys = []string{"title", "name"}
	urlKeys   = []string{"url", "href", "link", "uri"}
	textKeys  = []string{"text", "content", "snippet", "body"}
	idKeys    = []string{"id"}
)

// hits maps a tool's output to results: structuredContent first, else the
// JSON inside its text content, else its resource_link items, else the
// whole text as one result.
//
// A list of results that is empty (`[]`, `{"results": []}`, an object of
// empty arrays such as the memory server's `{"entities": [], "relations":
// []}`) is an answer: nothing found. It is never read further, so its JSON
// (or a "no results" text beside it) does not become a passage.
func (o toolOutput) hits() []hit {
	if o.structured != nil {
		if hs := hitsOfValue(o.structured); len(hs) > 0 {
			return hs
		}
		if emptyList(o.structured) {
			return nil
		}
	}
	var fromJSON []hit
	empty := false
	for _, t := range o.texts {
		var v any
		if err := json.Unmarshal([]byte(strings.TrimSpace(t)), &v); err == nil {
			hs := hitsOfValue(v)
			fromJSON = append(fromJSON, hs...)
			empty = empty || len(hs) == 0 && emptyList(v)
		}
	}
	if len(fromJSON) > 0 || empty {
		return fromJSON
	}
	if len(o.links) > 0 {
		return o.links
	}
	if text := strings.TrimSpace(strings.Join(o.texts, "\n\n")); text != "" {
		return []hit{{Text: text}}
	}
	return nil
}

// hitsOfValue reads results out of a JSON value: an array of results; an
// object's array under results, documents, items or hits; else its one
// array of objects, or the first (by key) whose objects have a title or
// name; else the object itself when it looks like a result.
func hitsOfValue(v any) []hit {
	switch v := v.(type) {
	case []any:
		var out []hit
		for _, e := range v {
			switch e := e.(type) {
			case map[string]any:
				if h := hitOf(e); h != (hit{Bare: true}) {
					out = append(out, h)
				}
			case string:
				if strings.TrimSpace(e) != "" {
					out = append(out, hit{Text: e})
				}
			}
		}
		return out
	case map[string]any:
		for _, k := range listKeys {
			if list, ok := lookupKey(v, k).([]any); ok {
				return hitsOfValue(list)
			}
		}
		if list := resultArray(v); list != nil {
			return hitsOfValue(list)
		}
		if h := hitOf(v); !h.Bare || h.URL != "" {
			return []hit{h}
		}
	}
	return nil
}

// emptyList reports whether a JSON value is a list of results with none
// in it: an empty array, an object whose result list (results, documents,
// items, hits) is empty, or an object with arrays, all of them empty.
func emptyList(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, k := range listKeys {
			if list, ok := lookupKey(v, k).([]any); ok {
				return len(list) == 0
			}
		}
		arrays := 0
		for _, e := range v {
			if list, ok := e.([]any); ok {
				if len(list) > 0 {
					return false
				}
				arrays++
			}
		}
		return arrays > 0
	}
	return false
}

// resultArray is an object's one array of objects, or the first by key
// whose first object has a title or name.
func resultArray(obj map[string]any) []any {
	var arrays []string
	for k, v := range obj {
		if list, ok := v.([]any); ok && len(list) > 0 {
			if _, isObj := list[0].(map[string]any); isObj {
				arrays = append(arrays, k)
			}
		}
	}
	sort.Strings(arrays)
	if len(arrays) == 1 {
		return obj[arrays[0]].([]any)
	}
	for _, k := range arrays {
		first := obj[k].([]any)[0].(map[string]any)
		if firstString(first, titleKeys) != "" {
			return obj[k].([]any)
		}
	}
	return nil
}

// hitOf reads one result object. When it has no text field, its other
// fields become its text ("entityType: person", "observations: a; b"), and
// it is Bare when there are none.
func hitOf(obj map[string]any) hit {
	h := hit{
		ID:    scalarString(lookupAny(obj, idKeys)),
		Title: firstString(obj, titleKeys),
		URL:   firstString(obj, urlKeys),
		Text:  textOf(lookupAny(obj, textKeys)),
	}
	if h.Text == "" {
		h.Text = describe(obj)
		h.Bare = h.Text == ""
	}
	return h
}

// textOf is a text field: a string, or MCP content blocks' texts joined.
func textOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, e := range v {
			switch e := e.(type) {
			case string:
				parts = append(parts, e)
			case map[string]any:
				if t, ok := e["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// describe writes an object's fields other than its title, address and id
// as lines of "key: value", keys in order.
func describe(obj map[string]any) string {
	skip := map[string]bool{}
	for _, list := range [][]string{titleKeys, urlKeys, idKeys, textKeys} {
		for _, k := range list {
			skip[k] = true
		}
	}
	var keys []string
	for k := range obj {
		if !skip[strings.ToLower(k)] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		if v := flat(obj[k]); v != "" {
			lines = append(lines, k+": "+v)
		}
	}
	return strings.Join(lines, "\n")
}

// flat is a value on one line: scalars as they are, lists joined by "; ",
// objects as JSON.
func flat(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case []any:
		var parts []string
		for _, e := range v {
			if s := flat(e); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return scalarString(v)
}

func scalarString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return v.String()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// lookupKey finds a key regardless of case.
func lookupKey(obj map[string]any, key string) any {
	if v, ok := obj[key]; ok {
		return v
	}
	for k, v := range obj {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return nil
}

func lookupAny(obj map[string]any, keys []string) any {
	for _, k := range keys {
		if v := lookupKey(obj, k); v != nil {
			return v
		}
	}
	return nil
}

func firstString(obj map[string]any, keys []string) string {
	for _, k := range keys {
		if s, ok := lookupKey(obj, k).(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
