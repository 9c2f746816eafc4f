package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A session running in a live process is not deleted; once its process is
// gone it is, with its events.
func TestDeleteRefusesALiveRunningSession(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.CreateSession(ctx, Session{ID: "run1", Question: "q", Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	err := s.DeleteSession(ctx, "run1")
	var re *RunningError
	if !errors.Is(err, ErrRunning) || !errors.As(err, &re) || re.Owner.PID == 0 {
		t.Fatalf("deleting a live running session: %v", err)
	}
	if _, err := s.GetSession(ctx, "run1"); err != nil {
		t.Fatalf("the session is gone after a refused delete: %v", err)
	}
	// Its process is gone (a pid that cannot exist): deletable.
	if _, err := s.w.Exec("UPDATE sessions SET owner_pid = 0 WHERE id = 'run1'"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, "run1"); err != nil {
		t.Fatalf("deleting an orphaned running session: %v", err)
	}
	if _, err := s.GetSession(ctx, "run1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
}
