package web

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// Cache stores search results (and, with page fetching on, page texts)
// under opaque keys built by CacheKey and PageKey. An implementation
// enforces its own time-to-live: Get must not return expired entries.
// The SQLite implementation lives in the store package; MemoryCache is the
// in-process one.
type Cache interface {
	Get(ctx context.Context, key string) ([]sources.Document, bool, error)
	Put(ctx context.Context, key string, docs []sources.Document) error
}

// ErrOfflineMiss is matched by the error of a search in offline mode that
// the cache cannot answer. The error also matches sources.ErrUnavailable.
var ErrOfflineMiss = errors.New("offline: no cached results")

// CacheKey is the results key for a source ("web:duckduckgo") and query:
// the query is lower-cased and its whitespace collapsed, so "Go  Lang" and
// "go lang" share an entry.
func CacheKey(source, query string) string {
	return "search\x1f" + source + "\x1f" + NormaliseQuery(query)
}

// PageKey is the key of a fetched page's text.
func PageKey(pageURL string) string {
	return "page\x1f" + pageURL
}

// NormaliseQuery lower-cases q and collapses its whitespace.
func NormaliseQuery(q string) string {
	return strings.Join(strings.Fields(strings.ToLower(q)), " ")
}

// MemoryCache is a Cache held in memory with a fixed time-to-live. It is
// safe for concurrent use.
type MemoryCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]memoryEntry
}

type memoryEntry struct {
	docs    []sources.Document
	expires time.Time
}

// NewMemoryCache returns an empty cache whose entries live ttl (ttl <= 0:
// forever).
func NewMemoryCache(ttl time.Duration) *MemoryCache {
	return &MemoryCache{ttl: ttl, now: time.Now, entries: make(map[string]memoryEntry)}
}

// Get returns a copy of the live entry under key.
func (c *MemoryCache) Get(ctx context.Context, key string) ([]sources.Document, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, false, nil
	}
	if c.ttl > 0 && !c.now().Before(e.expires) {
		delete(c.entries, key)
		return nil, false, nil
	}
	return slices.Clone(e.docs), true, nil
}

// Put stores a copy of docs under key.
func (c *MemoryCache) Put(ctx context.Context, key string, docs []sources.Document) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = memoryEntry{docs: slices.Clone(docs), expires: c.now().Add(c.ttl)}
	return nil
}

// Len is the number of stored entries, expired ones included until read.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
