// Package sources holds what every retrieval source shares: the document
// type, the name of a source and the table of source kinds (kind.go,
// name.go), and the typed errors a source may return. Concrete sources live
// in sources/local (Bleve corpora), sources/elastic and sources/manticore
// (remote indexes), sources/mcp (MCP servers) and sources/web (search
// engines).
package sources

import (
	"errors"
	"fmt"
	"time"
)

// Document is one retrieved passage or web result.
type Document struct {
	// ID is stable for local passages (the .jsonl id or a path-derived id)
	// and the URL for web results.
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	URL   string `json:"url,omitempty"`
	// Source is the source's name as Name.String prints it
	// ("local:<corpus>", "mcp:<server>", "web:<engine>"); ParseName reads it.
	Source string  `json:"source"`
	Score  float64 `json:"score"`
	// Locator points a citation at the origin: "path#offset", "path#p3", or
	// the URL for web results.
	Locator string `json:"locator,omitempty"`
	// Cached is set when a web result came from the web cache rather than
	// a request; CachedAt is when it was fetched (zero when the cache entry
	// predates this field).
	Cached   bool      `json:"cached,omitempty"`
	CachedAt time.Time `json:"cached_at,omitzero"`
	// Ranks, set by a hybrid or dense search, say where the passage stood
	// in each leg (fusion.go); its JSON is bm25_rank and vector_rank.
	Ranks *Ranks `json:"-"`
	// TitleMatch, set by a local corpus's title heuristics, says how the
	// passage's title matches the query (TitleIsQuery, TitleIsQueryFolded,
	// TitleInQuery). Such passages are ranked ahead of the others, in that
	// order, so one may stand above a higher BM25 Score; TitleNote says it.
	TitleMatch string `json:"title_match,omitempty"`
}

// How a passage's title matches the query (Document.TitleMatch); a local
// corpus ranks them first, in this order.
const (
	TitleIsQuery       = "is_query"               // the title is the query
	TitleIsQueryFolded = "is_query_ignoring_case" // the same but for case and outer spaces
	TitleInQuery       = "in_query"               // the title appears in the query
)

// TitleNote says, in words, why a passage the title heuristics moved
// stands where it does ("ranked ahead: title is in the query"), "" for a
// passage ranked by its score alone. Every renderer shows it beside the
// score, so that a score lower than the one below it is explained.
func (d Document) TitleNote() string {
	switch d.TitleMatch {
	case TitleIsQuery:
		return "ranked ahead: title is the query"
	case TitleIsQueryFolded:
		return "ranked ahead: title is the query but for case"
	case TitleInQuery:
		return "ranked ahead: title is in the query"
	}
	return ""
}

// ErrTruncated is matched by errors that mean a source's answer was larger
// than the size limit and was cut, so results may be missing.
var ErrTruncated = errors.New("answer truncated")

// TruncatedError says a source's answer went past a size limit (a web
// engine's huge page or decompression bomb; an MCP server's megabytes of
// text). Results is how many results could still be read from the part
// kept; a search that returns this error with documents returns those
// partial results. Of names what was measured when it was not the bytes of
// the answer after decompression ("text": the text of the passages).
type TruncatedError struct {
	Engine  string
	Limit   int64
	Results int
	Of      string
}

func (e *TruncatedError) Error() string {
	limit := byteSize(e.Limit) + " (after decompression)"
	if e.Of != "" {
		limit = byteSize(e.Limit) + " of " + e.Of
	}
	if e.Results == 0 {
		return fmt.Sprintf("%s's answer was larger than %s and was cut; no result could be read from it", e.Engine, limit)
	}
	return fmt.Sprintf("%s's answer was larger than %s and was cut; %d result(s) were read, later ones are lost", e.Engine, limit, e.Results)
}

func (e *TruncatedError) Is(target error) bool { return target == ErrTruncated }

func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ErrBlocked is matched (errors.Is) by every error that means a web engine
// refused to answer: rate limits, bot challenges, 403s.
var ErrBlocked = errors.New("web search blocked")

// ErrUnavailable is matched by errors that mean a source could not be reached
// at all (timeouts, connection refused, circuit open).
var ErrUnavailable = errors.New("source unavailable")

// BlockedError says which engine refused and why.
type BlockedError struct {
	Engine string
	Status int    // HTTP status, 0 when the block was detected in the body
	Reason string // e.g. "bot challenge page", "HTTP 429"
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s blocked the search: %s", e.Engine, e.Reason)
}

func (e *BlockedError) Is(target error) bool { return target == ErrBlocked }

// UnavailableError wraps a transport failure of a source.
type UnavailableError struct {
	Source string
	Err    error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s unavailable: %v", e.Source, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }
