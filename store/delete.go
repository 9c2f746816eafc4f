package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrRunning is matched (errors.Is) when a session cannot be deleted
// because the process running it is alive (or on another host, where it
// cannot be checked).
var ErrRunning = errors.New("session is running")

// RunningError names the running session that was not deleted.
type RunningError struct {
	ID    string
	Owner Owner
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("it is running in process %d on %s; stop it first", e.Owner.PID, e.Owner.Host)
}

func (e *RunningError) Is(target error) bool { return target == ErrRunning }

// checkNotRunning refuses, inside a delete's transaction, a session still
// running in a live process.
func (s *Store) checkNotRunning(ctx context.Context, tx *sql.Tx, id string) error {
	var status string
	var o Owner
	err := tx.QueryRowContext(ctx, "SELECT status, owner_host, owner_pid, owner_start, owner_boot FROM sessions WHERE id = ?", id).
		Scan(&status, &o.Host, &o.PID, &o.Start, &o.Boot)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // DeleteSession reports it as not found
	}
	if err != nil {
		return err
	}
	if status == StatusRunning && s.own.check(o) != ownerGone {
		return &RunningError{ID: id, Owner: o}
	}
	return nil
}
