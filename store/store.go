// Package store keeps prefrag's sessions in SQLite: every session, every
// event of it (as the exact JSON line `ask --json` printed), the web cache and
// the analyst's verdicts on selection-judge decisions.
//
// Several prefrag processes (the TUI and headless `ask` runs) share one
// database file. The store opens it in WAL mode so readers never wait for the
// writer, writes through a pool of one connection with BEGIN IMMEDIATE and a
// busy timeout, keeps every write transaction small, and retries a bounded
// number of times when SQLite still answers SQLITE_BUSY.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/mattn/go-sqlite3"
)

const (
	// busyTimeout is how long SQLite itself waits for a lock before it
	// answers SQLITE_BUSY.
	busyTimeout = 10 * time.Second
	// busyRetries is how many more times a write is tried after SQLITE_BUSY.
	busyRetries = 5
	// readConns bounds the reader pool. WAL readers do not block each other
	// or the writer.
	readConns = 4
)

// Store is an open session database. It is safe for concurrent use.
type Store struct {
	path string
	w    *sql.DB // one connection: the only writer of this process
	r    *sql.DB // readers
	own  Owner   // this process, recorded on the sessions it creates
	ro   string  // why the file cannot be written here; "" when it can (w is nil then)
	// full is set when the store was opened read-only because the file
	// could not grow: every write answers it.
	full *FullError
}

// Open opens (creating when missing) the database at path and brings its
// schema up to date. A database written by a newer prefrag is refused with a
// *NewerSchemaError before anything in it is changed. An existing database
// this process cannot write (a read-only file, folder or file system) is
// opened read-only: reads work, writes answer *ReadOnlyError (see ReadOnly).
// So is an existing database that cannot grow (a full disk, a used-up quota,
// the ulimit -f limit): reads need no room, writes answer its *FullError.
// A damaged file gives *DamagedError. ctx bounds the migrations.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session database %s: %w", path, err)
	}
	_, statErr := os.Stat(abs)
	existed := statErr == nil
	if existed {
		if why := readOnlyReason(abs); why != "" {
			return openReadOnly(ctx, abs, why)
		}
	}
	if err := refuseNewer(ctx, abs); err != nil {
		if existed && errors.Is(err, ErrFull) {
			return openFull(ctx, abs, err)
		}
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		if isFull(err) {
			return nil, &FullError{Path: abs, Err: err}
		}
		return nil, fmt.Errorf("create folder for the session database: %w", err)
	}
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		if why := cannotWrite(filepath.Dir(abs)); why != "" {
			return nil, fmt.Errorf("cannot create the session database %s (%s on its folder); set PREFRAG_HOME to a writable folder: %w", abs, why, ErrReadOnly)
		}
	}
	w, err := sql.Open("sqlite3", dsn(abs, true))
	if err != nil {
		return nil, fmt.Errorf("open session database %s: %w", abs, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite3", dsn(abs, false))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open session database %s: %w", abs, err)
	}
	r.SetMaxOpenConns(readConns)
	r.SetMaxIdleConns(readConns)
	s := &Store{path: abs, w: w, r: r, own: currentOwner()}
	if err := s.migrateTo(ctx, len(migrations)); err != nil {
		s.Close()
		if existed && errors.Is(err, ErrFull) {
			return openFull(ctx, abs, err)
		}
		var newer *NewerSchemaError
		if errors.As(err, &newer) || errors.Is(err, ErrDamaged) || errors.Is(err, ErrFull) {
			return nil, err
		}
		return nil, fmt.Errorf("prepare session database %s: %w", abs, err)
	}
	return s, nil
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close closes both connection pools.
func (s *Store) Close() error {
	if s.w == nil {
		return s.r.Close()
	}
	return errors.Join(s.r.Close(), s.w.Close())
}

// dsn builds a file: URI (so any path, spaces and '?' included, is taken
// literally) with the connection settings every prefrag process uses.
func dsn(path string, writer bool) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_foreign_keys", "on")
	// NORMAL is safe in WAL mode: a killed process loses nothing that was
	// committed; only a power cut may lose the last commits.
	q.Set("_synchronous", "NORMAL")
	if writer {
		q.Set("_txlock", "immediate")
	} else {
		q.Set("_query_only", "on")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// refuseNewer reads the schema version of an existing file through a
// read-only connection that changes nothing (not even the journal mode), so
// a newer database is refused untouched.
func refuseNewer(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: "mode=ro&_busy_timeout=" + fmt.Sprint(busyTimeout.Milliseconds())}
	db, err := sql.Open("sqlite3", u.String())
	if err != nil {
		return fmt.Errorf("open session database %s: %w", path, err)
	}
	defer db.Close()
	v, err := userVersion(ctx, db)
	if isCorrupt(err) || isFull(err) {
		return damagedAt(path, err)
	}
	if err != nil {
		return fmt.Errorf("session database %s cannot be read (is it a prefrag database?): %w", path, err)
	}
	if v > len(migrations) {
		return &NewerSchemaError{Path: path, Found: v, Known: len(migrations)}
	}
	return nil
}

// isBusy reports SQLITE_BUSY (any extended code), the one error a write is
// retried on.
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrBusy
}

// write runs fn in one short immediate transaction on the writer connection,
// retrying a bounded number of times on SQLITE_BUSY only. fn may run more
// than once, so it must not have effects outside the transaction.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.full != nil {
		return s.full
	}
	if s.ro != "" {
		return &ReadOnlyError{Path: s.path, Why: s.ro}
	}
	var err error
	for attempt := 0; ; attempt++ {
		err = s.writeOnce(ctx, fn)
		if err == nil || !isBusy(err) || attempt >= busyRetries {
			return s.damaged(err)
		}
		t := time.NewTimer(time.Duration(attempt+1) * 25 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(ctx.Err(), err)
		case <-t.C:
		}
	}
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, rollback(tx))
	}
	return tx.Commit()
}

func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns its first line
// ("ok" for a sound database).
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	if err := s.r.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	return res, nil
}
