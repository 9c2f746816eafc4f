package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fixture"
)

// BenchmarkAppendEvent measures one committed event (one transaction each,
// as during a live run), cycling through the case-study event shapes.
func BenchmarkAppendEvent(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: "bench", Question: fixture.Question}); err != nil {
		b.Fatal(err)
	}
	evs := fixture.Events("bench")
	b.ReportAllocs()
	seq := 0
	for b.Loop() {
		ev := evs[seq%len(evs)]
		seq++
		ev.Seq = seq
		if err := s.AppendEvent(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetSession measures reading a whole case-study session back
// (row, lines, decoded events) from a database holding many sessions.
func BenchmarkGetSession(b *testing.B) {
	s := openTemp(b)
	for i := range 200 {
		createFixture(b, s, fmt.Sprintf("s%04d", i), fixture.Start.Add(time.Duration(i)*time.Minute))
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.GetSession(ctx, "s0150"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListSessions measures `sessions list` over 1000 sessions.
func BenchmarkListSessions(b *testing.B) {
	s := openTemp(b)
	for i := range 1000 {
		createFixture(b, s, fmt.Sprintf("s%04d", i), fixture.Start.Add(time.Duration(i)*time.Minute))
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.ListSessions(ctx, Filter{Limit: 50}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFinishSession measures finishing a session (which re-indexes its
// answer for search) in a database of 5000 sessions: it must not grow with
// the number of sessions.
func BenchmarkFinishSession(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	const n = 5000
	for i := range n {
		if err := s.CreateSession(ctx, Session{ID: fmt.Sprintf("s%05d", i), Question: fixture.Question}); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		i++
		if err := s.FinishSession(ctx, fmt.Sprintf("s%05d", i%n), StatusAnswered, fmt.Sprintf("%s (%d)", fixture.FinalAnswer, i), "CORRECT", nil); err != nil {
			b.Fatal(err)
		}
	}
}
