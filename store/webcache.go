package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/prefrag/prefrag/sources"
)

// DefaultWebCacheTTL is how long a cached web result is served when no TTL
// is configured.
const DefaultWebCacheTTL = 24 * time.Hour

// WebCache keeps web search results in the session database. It satisfies
// the Cache interface of sources/web:
//
//	Get(ctx, key string) ([]sources.Document, bool, error)
//	Put(ctx, key string, docs []sources.Document) error
type WebCache struct {
	Store *Store
	// TTL is how long an entry is served; 0 means DefaultWebCacheTTL.
	TTL time.Duration
	// Offline serves every stored entry whatever its age (no request may
	// leave the machine, so an old result beats none).
	Offline bool
	// Session, when set, is the session whose use of each key is recorded
	// (as AddSessionCacheKey does) on every hit and every Put, once that
	// session is stored.
	Session string

	now func() time.Time // time.Now unless a test sets it
}

func (c WebCache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func (c WebCache) ttl() time.Duration {
	if c.TTL > 0 {
		return c.TTL
	}
	return DefaultWebCacheTTL
}

// ForSession is a copy of c that records the keys session id uses.
func (c WebCache) ForSession(id string) WebCache {
	c.Session = id
	return c
}

// Get returns the documents stored under key when they are younger than the
// TTL (or at any age when Offline).
func (c WebCache) Get(ctx context.Context, key string) ([]sources.Document, bool, error) {
	var (
		docs   string
		stored int64
	)
	err := c.Store.r.QueryRowContext(ctx, "SELECT docs, stored_ns FROM web_cache WHERE key = ?", key).Scan(&docs, &stored)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("web cache get: %w", err)
	}
	if !c.Offline && c.clock().Sub(time.Unix(0, stored)) > c.ttl() {
		return nil, false, nil
	}
	var out []sources.Document
	if err := json.Unmarshal([]byte(docs), &out); err != nil {
		// A damaged entry is a miss; the next Put replaces it.
		return nil, false, nil
	}
	if c.Session != "" {
		err := c.Store.write(ctx, func(tx *sql.Tx) error {
			return recordCacheUse(ctx, tx, c.Session, key, c.clock().UnixNano())
		})
		if err != nil {
			return nil, false, fmt.Errorf("web cache get: record use by session %s: %w", c.Session, err)
		}
	}
	return out, true, nil
}

// Put stores docs under key, replacing what was there.
func (c WebCache) Put(ctx context.Context, key string, docs []sources.Document) error {
	if docs == nil {
		docs = []sources.Document{}
	}
	b, err := json.Marshal(docs)
	if err != nil {
		return fmt.Errorf("web cache put: %w", err)
	}
	now := c.clock().UnixNano()
	err = c.Store.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO web_cache (key, docs, stored_ns) VALUES (?, ?, ?)
			ON CONFLICT(key) DO UPDATE SET docs = excluded.docs, stored_ns = excluded.stored_ns`, key, string(b), now); err != nil {
			return err
		}
		if c.Session == "" {
			return nil
		}
		return recordCacheUse(ctx, tx, c.Session, key, now)
	})
	if err != nil {
		return fmt.Errorf("web cache put: %w", err)
	}
	return nil
}

// AddSessionCacheKey records that session sessionID used the web cache entry
// key, so a re-run can be served the same web results.
func (s *Store) AddSessionCacheKey(ctx context.Context, sessionID, key string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		return addSessionCacheKey(ctx, tx, sessionID, key, time.Now().UnixNano())
	})
	if err != nil {
		return fmt.Errorf("record cache key of session %s: %w", sessionID, err)
	}
	return nil
}

// recordCacheUse is AddSessionCacheKey for the cache itself: a session that
// is not (yet) stored is no reason to fail a search, so nothing is recorded
// for it.
func recordCacheUse(ctx context.Context, tx *sql.Tx, sessionID, key string, now int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO session_cache_keys (session_id, key, first_ns)
		SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
		ON CONFLICT(session_id, key) DO NOTHING`, sessionID, key, now, sessionID)
	return err
}

func addSessionCacheKey(ctx context.Context, tx *sql.Tx, sessionID, key string, now int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO session_cache_keys (session_id, key, first_ns) VALUES (?, ?, ?)
		ON CONFLICT(session_id, key) DO NOTHING`, sessionID, key, now)
	if isConstraint(err, sqlite3.ErrConstraintForeignKey) {
		return &NotFoundError{What: "session", ID: sessionID}
	}
	return err
}

// PurgeWebCache deletes entries older than maxAge and returns how many went.
func (s *Store) PurgeWebCache(ctx context.Context, maxAge time.Duration) (int64, error) {
	var n int64
	cutoff := time.Now().Add(-maxAge).UnixNano()
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM web_cache WHERE stored_ns < ?", cutoff)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge web cache: %w", err)
	}
	return n, nil
}
