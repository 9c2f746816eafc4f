package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// ErrDamaged is matched when the database file itself is damaged (truncated,
// overwritten, not an SQLite file): SQLite answers SQLITE_CORRUPT or
// SQLITE_NOTADB.
var ErrDamaged = errors.New("session database is damaged")

// ErrBadEvent is matched when one stored event row of a session cannot be
// decoded. The rest of the database is readable.
var ErrBadEvent = errors.New("stored event cannot be read")

// ErrReadOnly is matched by a write to a database opened read-only.
var ErrReadOnly = errors.New("session database is read-only")

// DamagedError says which file is damaged and what to do about it.
type DamagedError struct {
	Path string
	Err  error // SQLite's own error
}

func (e *DamagedError) Error() string {
	why := error(e.Err)
	var se sqlite3.Error
	if errors.As(e.Err, &se) {
		why = se // SQLite's words, without the operation that met them
	}
	return fmt.Sprintf("session database %s is damaged (%v): move it aside (mv %s %s, with any -wal and -shm files next to it) so prefrag starts a new one, or restore it from a backup",
		e.Path, why, e.Path, e.Path+".damaged")
}

func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }
func (e *DamagedError) Unwrap() error        { return e.Err }

// BadEventError names the session and the events of it that cannot be
// decoded. GetSession returns it together with a Record holding every
// readable event.
type BadEventError struct {
	Session string
	Seqs    []int // the unreadable events, in seq order
	Err     error // why the first of them cannot be read
}

func (e *BadEventError) Error() string {
	return fmt.Sprintf("session %s: %s; its other events and the other sessions can still be read, and `prefrag sessions export` skips this session", e.Session, e.What())
}

// What says which events cannot be read and why, without the session id.
func (e *BadEventError) What() string {
	which := fmt.Sprintf("stored event %d", e.Seqs[0])
	if len(e.Seqs) > 1 {
		which = fmt.Sprintf("%d stored events (seq %s)", len(e.Seqs), seqList(e.Seqs))
	}
	return fmt.Sprintf("%s cannot be read (%v)", which, e.Err)
}

func seqList(seqs []int) string {
	var b strings.Builder
	for i, q := range seqs {
		if i == 5 {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, q)
	}
	return b.String()
}

func (e *BadEventError) Is(target error) bool { return target == ErrBadEvent }
func (e *BadEventError) Unwrap() error        { return e.Err }

// ReadOnlyError is what a write to a read-only database returns.
type ReadOnlyError struct {
	Path string
	Why  string // why the store was opened read-only
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("session database %s is read-only here (%s): sessions can be listed, shown and exported but nothing new can be recorded; make it writable or set PREFRAG_HOME to a writable folder", e.Path, e.Why)
}

func (e *ReadOnlyError) Is(target error) bool { return target == ErrReadOnly }

// isCorrupt reports SQLite's answers for a damaged file.
func isCorrupt(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// damaged turns SQLite's corruption errors into a *DamagedError, and a
// write refused for lack of room into a *FullError, naming this store's
// file; every other error is returned as it is.
func (s *Store) damaged(err error) error {
	return damagedAt(s.path, err)
}

func damagedAt(path string, err error) error {
	if err == nil || errors.Is(err, ErrDamaged) || errors.Is(err, ErrFull) {
		return err
	}
	if isCorrupt(err) {
		return &DamagedError{Path: path, Err: err}
	}
	if isFull(err) {
		return &FullError{Path: path, Err: err}
	}
	return err
}
