package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mattn/go-sqlite3"
)

// readOnlyReason tells why the database file at path cannot be written by
// this process ("" when it can). In WAL mode SQLite writes the file and keeps
// a -wal and a -shm file next to it, so when the folder is not writable those
// two must already exist and be writable.
func readOnlyReason(path string) string {
	if why := cannotWrite(path); why != "" {
		if why == "read-only file system" {
			return why
		}
		return why + " on the file"
	}
	if why := cannotWrite(filepath.Dir(path)); why != "" {
		for _, suffix := range []string{"-wal", "-shm"} {
			if cannotWrite(path+suffix) != "" {
				if why == "read-only file system" {
					return why
				}
				return why + " on its folder"
			}
		}
	}
	return ""
}

// openReadOnly opens an existing database that this process cannot write,
// for reading only: list, show, search and export work, every write answers
// *ReadOnlyError, and nothing in the folder is changed.
//
// A WAL database is read through its -shm index. When that index exists (a
// prefrag that can write is running, or was killed) or can be created, a
// plain read-only connection sees every commit. When neither is possible the
// file is opened immutable: SQLite then reads the main file alone, without
// locks, so commits still waiting in a -wal file are not seen — the store
// says so in its reason. (No room to size a new index, on a full disk, is
// the same case.)
func openReadOnly(ctx context.Context, path, why string) (*Store, error) {
	db, v, err := openReader(ctx, path, false)
	if err != nil && (needsIndex(err) || isFull(err)) {
		db, v, err = openReader(ctx, path, true)
		if err == nil {
			if fi, serr := os.Stat(path + "-wal"); serr == nil && fi.Size() > 0 {
				why += "; the latest changes, still in " + filepath.Base(path) + "-wal, cannot be read without write access to the folder"
			}
		}
	}
	if err != nil {
		if isCorrupt(err) || isFull(err) {
			return nil, damagedAt(path, err)
		}
		return nil, fmt.Errorf("session database %s cannot be read (is it a prefrag database?): %w", path, err)
	}
	if v > len(migrations) {
		db.Close()
		return nil, &NewerSchemaError{Path: path, Found: v, Known: len(migrations)}
	}
	if v < len(migrations) {
		db.Close()
		return nil, fmt.Errorf("session database %s was written by an older prefrag (schema %d) and is read-only here (%s); open it once where it is writable so prefrag can upgrade it: %w", path, v, why, ErrReadOnly)
	}
	return &Store{path: path, r: db, own: currentOwner(), ro: why}, nil
}

// openReader opens a pool of read-only connections and reads the schema
// version through it (which is when SQLite first touches the file).
func openReader(ctx context.Context, path string, immutable bool) (*sql.DB, int, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_query_only", "on")
	if immutable {
		q.Set("immutable", "1")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite3", u.String())
	if err != nil {
		return nil, 0, err
	}
	db.SetMaxOpenConns(readConns)
	db.SetMaxIdleConns(readConns)
	v, err := userVersion(ctx, db)
	if err != nil {
		db.Close()
		return nil, 0, err
	}
	return db, v, nil
}

// needsIndex reports SQLite's answers when a read-only connection cannot
// open or create the WAL index (-shm) it needs.
func needsIndex(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCantOpen || se.Code == sqlite3.ErrReadonly)
}

// ReadOnly tells why the store was opened read-only; "" when it can write.
func (s *Store) ReadOnly() string { return s.ro }
