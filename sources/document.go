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
