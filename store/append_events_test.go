package store

import (
	"context"
	"errors"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
)

// AppendEvents commits a batch as one: all of it or none of it.
func TestAppendEventsIsOneCommit(t *testing.T) {
	ev := func(seq int, p engine.Payload) engine.Event {
		return engine.Event{Session: "s", Seq: seq, Step: 1, Payload: p, Time: fixture.Start}
	}
	tests := []struct {
		name      string
		batch     []engine.Event
		wantErr   error
		wantSeqs  int
		wantFinal bool
	}{
		{"a batch, tokens skipped", []engine.Event{ev(2, engine.Thought{Text: "t"}), {Session: "s", Seq: 2, Payload: engine.Token{Text: "x"}}, ev(3, engine.Action{})}, nil, 3, false},
		{"final records the answer", []engine.Event{ev(2, engine.Thought{Text: "t"}), {Session: "s", Seq: 3, Time: fixture.Start, Payload: engine.Final{Answer: "1974"}}}, nil, 3, true},
		{"a stored seq again: none of the batch", []engine.Event{ev(2, engine.Thought{Text: "t"}), ev(1, engine.Thought{Text: "t"})}, ErrExists, 1, false},
		{"an invalid event: none of the batch", []engine.Event{ev(2, engine.Thought{Text: "t"}), {Session: "s", Payload: engine.Thought{}}}, ErrInvalid, 1, false},
		{"only tokens", []engine.Event{{Session: "s", Seq: 1, Payload: engine.Token{Text: "x"}}}, nil, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTemp(t)
			ctx := context.Background()
			if err := s.CreateSession(ctx, Session{ID: "s", Question: fixture.Question}); err != nil {
				t.Fatal(err)
			}
			if err := s.AppendEvent(ctx, ev(1, engine.SessionStart{})); err != nil {
				t.Fatal(err)
			}
			err := s.AppendEvents(ctx, tt.batch)
			if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("AppendEvents: %v, want %v", err, tt.wantErr)
			}
			rec, err := s.GetSession(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Lines) != tt.wantSeqs {
				t.Errorf("%d events stored, want %d", len(rec.Lines), tt.wantSeqs)
			}
			if got := rec.Session.Answer == "1974"; got != tt.wantFinal {
				t.Errorf("session answer %q", rec.Session.Answer)
			}
		})
	}
}
