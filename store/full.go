package store

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// ErrFull is matched when the session database cannot be written for lack
// of room: the disk is full (SQLITE_FULL, ENOSPC), the user's disk quota is
// used up (EDQUOT) or the file size limit of the process is reached (EFBIG).
var ErrFull = errors.New("no room left for the session database")

// FullError says which file could not grow, why, and what to do.
type FullError struct {
	Path string
	Err  error // SQLite's or the system's own error
}

func (e *FullError) Error() string {
	why, todo := noRoomWhy(e.Err)
	return fmt.Sprintf("no room left to write the session database %s (%s): %s; nothing stored so far is lost", e.Path, why, todo)
}

func (e *FullError) Is(target error) bool { return target == ErrFull }
func (e *FullError) Unwrap() error        { return e.Err }

// noRoomWhy words which limit was met and what to do about it.
func noRoomWhy(err error) (why, todo string) {
	switch noRoomErrno(err) {
	case syscall.EDQUOT:
		return "your disk quota is used up", "free some of your files there or ask for a larger quota, or set PREFRAG_HOME to a folder elsewhere"
	case syscall.EFBIG:
		return "the file size limit of this process, ulimit -f, is reached", "raise the limit (ulimit -f unlimited), or set PREFRAG_HOME to a new folder"
	}
	return "the disk is full", "free some space on that disk, or set PREFRAG_HOME to a folder on another disk"
}

// noRoomErrno is the system error behind a write refused for lack of room
// (ENOSPC for SQLITE_FULL), 0 for any other error.
func noRoomErrno(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.SystemErrno {
		case syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG:
			return se.SystemErrno
		}
		if se.Code == sqlite3.ErrFull {
			return syscall.ENOSPC
		}
		return 0
	}
	for _, no := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG} {
		if errors.Is(err, no) {
			return no
		}
	}
	return 0
}

// openFull opens an existing database that could not be opened for writing
// for lack of room (err matches ErrFull) read-only: listing, showing,
// searching and exporting sessions need no room. Every write answers the
// *FullError; when even reading fails, err is the answer.
func openFull(ctx context.Context, path string, err error) (*Store, error) {
	var full *FullError
	if !errors.As(err, &full) {
		full = &FullError{Path: path, Err: err}
	}
	why, _ := noRoomWhy(full.Err)
	s, rerr := openReadOnly(ctx, path, "no room left to write it: "+why)
	if rerr != nil {
		return nil, full
	}
	s.full = full
	return s, nil
}

// isFull reports a write refused for lack of room.
func isFull(err error) bool { return noRoomErrno(err) != 0 }
