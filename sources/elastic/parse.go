package elastic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prefrag/prefrag/sources"
)

// Fields names the document fields read from each hit's _source.
type Fields struct {
	Title, Text, URL string
	// ID, when set, is a _source field used as the document id instead
	// of the hit's _id.
	ID string
}

// Result is one parsed _search answer.
type Result struct {
	Docs []sources.Document
	// Total is hits.total (an object in Elasticsearch 7+/OpenSearch, a
	// number in Elasticsearch 6); -1 when absent.
	Total        int64
	TimedOut     bool
	ShardsTotal  int
	ShardsFailed int
	// Failures are the first shard failure reasons ("type: reason").
	Failures []string
}

// searchResponse is the documented _search response shape.
type searchResponse struct {
	TimedOut bool `json:"timed_out"`
	Shards   *struct {
		Total    int               `json:"total"`
		Failed   int               `json:"failed"`
		Failures []json.RawMessage `json:"failures"`
	} `json:"_shards"`
	Hits *struct {
		Total json.RawMessage `json:"total"`
		Hits  []struct {
			Index  string          `json:"_index"`
			ID     json.RawMessage `json:"_id"`
			Score  *float64        `json:"_score"`
			Source json.RawMessage `json:"_source"`
		} `json:"hits"`
	} `json:"hits"`
	Error json.RawMessage `json:"error"`
}

// ErrBadResponse is matched when an answer is not a _search response.
var ErrBadResponse = errors.New("not an Elasticsearch search response")

// ParseSearch parses a _search response body. It is strict about the shape
// (an object with hits) and lenient about field types (a title may be a
// string, a number or an array of strings; a missing field is "").
func ParseSearch(body []byte, f Fields) (Result, error) {
	var r searchResponse
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return Result{}, fmt.Errorf("%w: it carries an error: %s", ErrBadResponse, errorSummary(r.Error))
	}
	if r.Hits == nil {
		return Result{}, fmt.Errorf("%w: it has no hits", ErrBadResponse)
	}
	res := Result{Total: parseTotal(r.Hits.Total), TimedOut: r.TimedOut}
	if r.Shards != nil {
		res.ShardsTotal, res.ShardsFailed = r.Shards.Total, r.Shards.Failed
		for i, raw := range r.Shards.Failures {
			if i == 3 {
				break
			}
			var sf struct {
				Index  string          `json:"index"`
				Reason json.RawMessage `json:"reason"`
			}
			if json.Unmarshal(raw, &sf) == nil {
				res.Failures = append(res.Failures, errorSummary(sf.Reason))
			}
		}
	}
	for _, h := range r.Hits.Hits {
		var src map[string]any
		if len(h.Source) > 0 && string(h.Source) != "null" {
			d := json.NewDecoder(bytes.NewReader(h.Source))
			d.UseNumber()
			if err := d.Decode(&src); err != nil {
				// A hit whose _source is not an object is skipped.
				continue
			}
		}
		id := scalar(h.ID)
		doc := sources.Document{
			ID:    id,
			Title: field(src, f.Title),
			Text:  field(src, f.Text),
			URL:   field(src, f.URL),
		}
		if f.ID != "" {
			if v := field(src, f.ID); v != "" {
				doc.ID = v
			}
		}
		if h.Score != nil {
			doc.Score = *h.Score
		}
		if id != "" {
			doc.Locator = h.Index + "/_doc/" + id
		}
		if doc.ID == "" && doc.Text == "" && doc.Title == "" {
			continue
		}
		res.Docs = append(res.Docs, clean(doc))
	}
	return res, nil
}

// parseTotal reads hits.total: {"value": n, "relation": "eq"} or n.
func parseTotal(raw json.RawMessage) int64 {
	if len(raw) == 0 {
		return -1
	}
	var obj struct {
		Value json.Number `json:"value"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Value != "" {
		if n, err := obj.Value.Int64(); err == nil {
			return n
		}
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if v, err := n.Int64(); err == nil {
			return v
		}
	}
	return -1
}

// scalar renders a JSON string or number as text.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// field reads a (possibly dotted) field from _source: "title", or
// "meta.title" for {"meta": {"title": …}} or {"meta.title": …}.
func field(src map[string]any, name string) string {
	if src == nil || name == "" {
		return ""
	}
	if v, ok := src[name]; ok {
		return text(v)
	}
	head, rest, ok := strings.Cut(name, ".")
	if !ok {
		return ""
	}
	if sub, ok := src[head].(map[string]any); ok {
		return field(sub, rest)
	}
	return ""
}

// text renders a _source value: strings as they are, numbers and booleans
// spelled out, arrays joined with blank lines (multi-valued text fields).
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case []any:
		var parts []string
		for _, e := range x {
			if s := text(e); s != "" {
				parts = append(parts, s)
			}
			if len(parts) == 1000 {
				break
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// clean makes a remote document safe like a local one: valid UTF-8, one
// line for the title, URL and locator, no control sequences.
func clean(d sources.Document) sources.Document {
	for _, p := range []*string{&d.ID, &d.Title, &d.Text, &d.URL, &d.Locator} {
		if !utf8.ValidString(*p) {
			*p = strings.ToValidUTF8(*p, "\uFFFD")
		}
	}
	return d.Sanitized()
}

// errorSummary renders an Elasticsearch error object ("type: reason",
// with the root cause when it says more) or a plain string, cut short.
func errorSummary(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return cut(s)
	}
	var e esError
	if json.Unmarshal(raw, &e) != nil {
		return cut(string(raw))
	}
	return cut(e.summary())
}

type esError struct {
	Type      string `json:"type"`
	Reason    string `json:"reason"`
	Index     string `json:"index"`
	RootCause []struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"root_cause"`
}

func (e esError) summary() string {
	msg := e.Type
	if e.Reason != "" {
		if msg != "" {
			msg += ": "
		}
		msg += e.Reason
	}
	if len(e.RootCause) > 0 && e.RootCause[0].Reason != "" && e.RootCause[0].Reason != e.Reason {
		msg += " (" + e.RootCause[0].Type + ": " + e.RootCause[0].Reason + ")"
	}
	return msg
}

func cut(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}
