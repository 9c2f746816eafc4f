package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
)

// TestFullDiskOnAppend: when the database cannot grow (SQLite answers
// SQLITE_FULL; here its page limit is the file's size, as on a full disk),
// an append answers a *FullError that says the disk is full and what to do,
// and everything stored before is still there. Before the fix the error
// was SQLite's bare "database or disk is full", wrapped in the operation.
func TestFullDiskOnAppend(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	id := "5c2d7e1a-0000-4000-8000-000000000001"
	createFixture(t, s, id, time.Now().UTC())
	var pages int
	if err := s.w.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	// The writer pool is one connection kept open: the limit holds for
	// every later write of this store.
	if _, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	big := engine.Event{Session: id, Seq: 1000, Step: 9, Time: time.Now().UTC(), Payload: engine.Thought{Text: strings.Repeat("a long thought ", 20000)}}
	err := s.AppendEvent(ctx, big)
	if !errors.Is(err, ErrFull) {
		t.Fatalf("append on a full database: %v, want ErrFull", err)
	}
	var fe *FullError
	if !errors.As(err, &fe) || fe.Path != s.Path() {
		t.Fatalf("error %#v does not name the file %s", err, s.Path())
	}
	msg := err.Error()
	for _, want := range []string{"no room left to write the session database " + s.Path(), "the disk is full", "free some space on that disk", "PREFRAG_HOME"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "cannot be read") || errors.Is(err, ErrDamaged) {
		t.Errorf("a full disk is reported as a damaged or unreadable file: %s", msg)
	}
	rec, err := s.GetSession(ctx, id)
	if err != nil || len(rec.Events) != len(fixture.Events(id)) {
		t.Fatalf("the session stored before the disk filled: %v", err)
	}
}

// TestNoRoomClassified: each way the system says "no room" is a
// *FullError with its own reason; other I/O errors are left alone.
func TestNoRoomClassified(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string // "" when the error is not about room
	}{
		{"SQLITE_FULL", sqlite3.Error{Code: sqlite3.ErrFull}, "the disk is full"},
		{"shm on a full disk", fmt.Errorf("read schema version: %w", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.ENOSPC}), "the disk is full"},
		{"quota", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.EDQUOT}, "your disk quota is used up"},
		{"ulimit -f", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.EFBIG}, "ulimit -f"},
		{"mkdir", &os.PathError{Op: "mkdir", Path: "/x", Err: syscall.ENOSPC}, "the disk is full"},
		{"other I/O", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.EIO}, ""},
		{"corrupt", sqlite3.Error{Code: sqlite3.ErrCorrupt}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := damagedAt("/home/a/prefrag.db", tt.err)
			if tt.want == "" {
				if errors.Is(err, ErrFull) {
					t.Fatalf("%v taken for a full disk", tt.err)
				}
				return
			}
			if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a full-disk error saying %q", err, tt.want)
			}
		})
	}
}
