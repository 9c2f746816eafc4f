package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// Filter selects sessions for ListSessions. Zero fields do not filter.
type Filter struct {
	Since  time.Time // started at or after
	Status string    // one of Statuses; "interrupted" includes running sessions whose process is gone
	Label  string    // self-evaluation label, case-insensitive (CORRECT, PARTIALLY CORRECT, INCORRECT)
	Corpus string    // sessions that searched this corpus
	Text   string    // words that must all appear in the question or the answer (FTS4, prefix match)
	Limit  int       // at most this many; 0 = all
}

// ListSessions returns the sessions that match f, newest first. A running
// session whose owner process is gone is reported as interrupted (and marked
// so in the database).
func (s *Store) ListSessions(ctx context.Context, f Filter) ([]Session, error) {
	list, err := s.listSessions(ctx, f)
	return list, s.damaged(err)
}

func (s *Store) listSessions(ctx context.Context, f Filter) ([]Session, error) {
	if f.Status != "" && !validStatus(f.Status) {
		return nil, fmt.Errorf("list sessions: %w: unknown status %q (one of %s)", ErrInvalid, f.Status, strings.Join(Statuses, ", "))
	}
	dead, err := s.reap(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var (
		where []string
		args  []any
	)
	if !f.Since.IsZero() {
		where = append(where, "s.started_ns >= ?")
		args = append(args, f.Since.UnixNano())
	}
	if f.Status != "" {
		in, inArgs := placeholders(dead)
		switch f.Status {
		case StatusInterrupted:
			where = append(where, "(s.status = 'interrupted' OR s.id IN ("+in+"))")
			args = append(args, inArgs...)
		case StatusRunning:
			where = append(where, "s.status = 'running'")
			if len(dead) > 0 {
				where = append(where, "s.id NOT IN ("+in+")")
				args = append(args, inArgs...)
			}
		default:
			where = append(where, "s.status = ?")
			args = append(args, f.Status)
		}
	}
	if f.Label != "" {
		where = append(where, "s.label = ? COLLATE NOCASE")
		args = append(args, strings.TrimSpace(f.Label))
	}
	if f.Corpus != "" {
		where = append(where, "EXISTS (SELECT 1 FROM session_corpora c WHERE c.session_id = s.id AND c.corpus = ?)")
		args = append(args, f.Corpus)
	}
	if m := matchQuery(f.Text); m != "" {
		where = append(where, "s.id IN (SELECT session_id FROM session_search WHERE docid IN (SELECT docid FROM sessions_fts WHERE sessions_fts MATCH ?))")
		args = append(args, m)
	}
	q := "SELECT " + sessionColumns + " FROM sessions s"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY s.started_ns DESC, s.id DESC"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		if dead[ss.ID] {
			ss.Status = StatusInterrupted
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// SearchSessions finds sessions whose question or answer contains every word
// of text (SQLite FTS4, words matched as prefixes), newest first.
func (s *Store) SearchSessions(ctx context.Context, text string) ([]Session, error) {
	if matchQuery(text) == "" {
		return []Session{}, nil
	}
	return s.ListSessions(ctx, Filter{Text: text})
}

// placeholders returns "?, ?, …" for the keys of set (or "NULL" for none)
// and the keys as arguments.
func placeholders(set map[string]bool) (string, []any) {
	if len(set) == 0 {
		return "NULL", nil
	}
	args := make([]any, 0, len(set))
	for id := range set {
		args = append(args, id)
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", "), args
}

// Record is one session with everything stored about it.
type Record struct {
	Session Session
	// Lines are the events exactly as stored (and as `ask --json` printed
	// them), in seq order.
	Lines []json.RawMessage
	// Events are Lines decoded.
	Events []engine.Event
	// Verdicts maps the seq of a selection event to the analyst's verdict on
	// that judge decision.
	Verdicts map[int]string
	// CacheKeys are the web cache entries the session used, in first-use
	// order.
	CacheKeys []string
}

// GetSession returns one session with its events. id may be a unique prefix
// of a session id (like git); an ambiguous prefix gives *AmbiguousError, a
// damaged file *DamagedError. When some stored events cannot be decoded it
// returns *BadEventError together with a Record that holds every readable
// event (Lines and Events then skip the bad seqs).
func (s *Store) GetSession(ctx context.Context, id string) (*Record, error) {
	full, err := s.ResolveID(ctx, id)
	if err != nil {
		return nil, err
	}
	rec, err := s.readRecord(ctx, full)
	var bad *BadEventError
	if err != nil && !errors.As(err, &bad) {
		return nil, s.damaged(fmt.Errorf("read session %s: %w", full, err))
	}
	if rec.Session.Status == StatusRunning && s.own.check(rec.Session.Owner) == ownerGone {
		rec.Session.Status = StatusInterrupted
		last := rec.Session.Started
		for _, ev := range rec.Events {
			if ev.Time.After(last) {
				last = ev.Time.UTC()
			}
		}
		rec.Session.Finished = &last
		if err := s.markInterrupted(ctx, []Session{rec.Session}); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if bad != nil {
		return rec, bad
	}
	return rec, nil
}

func (s *Store) readRecord(ctx context.Context, id string) (*Record, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer rollback(tx)
	rec := &Record{Verdicts: map[int]string{}, Lines: []json.RawMessage{}, Events: []engine.Event{}, CacheKeys: []string{}}
	rec.Session, err = scanSession(tx.QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM sessions s WHERE s.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &NotFoundError{What: "session", ID: id}
	}
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, "SELECT seq, json FROM events WHERE session_id = ? ORDER BY seq", id)
	if err != nil {
		return nil, err
	}
	// One undecodable row does not hide the others: it is skipped and named.
	var bad *BadEventError
	for rows.Next() {
		var (
			seq  int
			line sql.RawBytes
		)
		if err := rows.Scan(&seq, &line); err != nil {
			rows.Close()
			return nil, err
		}
		var ev engine.Event
		err := json.Unmarshal(line, &ev)
		if err != nil {
			err = fmt.Errorf("not valid event JSON: %w", err)
		} else if ev.Type() == "" || ev.Session != id || ev.Seq != seq {
			// Every stored line is an event of its own row (AppendEvent and
			// ImportRecord check it): anything else is damage.
			err = fmt.Errorf("not an event of this session (type %q, session %q, seq %d)", ev.Type(), ev.Session, ev.Seq)
		}
		if err != nil {
			if bad == nil {
				bad = &BadEventError{Session: id, Err: err}
			}
			bad.Seqs = append(bad.Seqs, seq)
			continue
		}
		rec.Lines = append(rec.Lines, json.RawMessage(bytes.Clone(line)))
		rec.Events = append(rec.Events, ev)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	if err := queryEach(ctx, tx, "SELECT seq, verdict FROM judge_verdicts WHERE session_id = ?", []any{id}, func(r *sql.Rows) error {
		var (
			seq int
			v   string
		)
		if err := r.Scan(&seq, &v); err != nil {
			return err
		}
		rec.Verdicts[seq] = v
		return nil
	}); err != nil {
		return nil, err
	}
	if err := queryEach(ctx, tx, "SELECT key FROM session_cache_keys WHERE session_id = ? ORDER BY first_ns, key", []any{id}, func(r *sql.Rows) error {
		var k string
		if err := r.Scan(&k); err != nil {
			return err
		}
		rec.CacheKeys = append(rec.CacheKeys, k)
		return nil
	}); err != nil {
		return nil, err
	}
	if bad != nil {
		return rec, bad
	}
	return rec, nil
}

func queryEach(ctx context.Context, tx *sql.Tx, q string, args []any, each func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ResolveID turns a full id or a unique id prefix into the full session id.
func (s *Store) ResolveID(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("%w: empty session id", ErrInvalid)
	}
	var ids []string
	err := func() error {
		// Exact match first: a full id wins even when it prefixes another.
		var got string
		err := s.r.QueryRowContext(ctx, "SELECT id FROM sessions WHERE id = ?", id).Scan(&got)
		if err == nil {
			ids = []string{got}
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		rows, err := s.r.QueryContext(ctx, "SELECT id FROM sessions WHERE id GLOB ? ORDER BY id LIMIT 6", globPrefix(id))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				return err
			}
			ids = append(ids, m)
		}
		return rows.Err()
	}()
	switch {
	case err != nil:
		return "", s.damaged(fmt.Errorf("find session %s: %w", id, err))
	case len(ids) == 0:
		return "", &NotFoundError{What: "session", ID: id}
	case len(ids) > 1:
		return "", &AmbiguousError{Prefix: id, Matches: ids}
	}
	return ids[0], nil
}

// globPrefix makes a GLOB pattern matching strings that start with p. GLOB
// is case-sensitive and uses the primary key index for a constant prefix.
func globPrefix(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch r {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('*')
	return b.String()
}

// reap finds running sessions whose owner process is gone, marks them
// interrupted in the database (best effort: a read-only database still reads
// correctly) and returns their ids.
func (s *Store) reap(ctx context.Context) (map[string]bool, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT "+sessionColumns+" FROM sessions s WHERE s.status = 'running'")
	if err != nil {
		return nil, err
	}
	var gone []Session
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		if s.own.check(ss.Owner) == ownerGone {
			gone = append(gone, ss)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	dead := make(map[string]bool, len(gone))
	for _, ss := range gone {
		dead[ss.ID] = true
	}
	if len(gone) > 0 {
		if err := s.markInterrupted(ctx, gone); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return dead, nil
}

// markInterrupted sets status interrupted on sessions whose owner is gone,
// with the time of their last event as the finish time. The owner is part of
// the condition, so a session that changed in between is left alone.
func (s *Store) markInterrupted(ctx context.Context, gone []Session) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, ss := range gone {
			_, err := tx.ExecContext(ctx, `UPDATE sessions SET status = 'interrupted',
				finished_ns = COALESCE((SELECT MAX(time_ns) FROM events e WHERE e.session_id = sessions.id), started_ns)
				WHERE id = ? AND status = 'running' AND owner_host = ? AND owner_pid = ? AND owner_start = ?`,
				ss.ID, ss.Owner.Host, ss.Owner.PID, int64(ss.Owner.Start))
			if err != nil {
				return err
			}
		}
		return nil
	})
}
