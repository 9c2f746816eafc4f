package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/sources"
)

// realisticEvents are the events whose persisting cost matters during a
// live run: a retrieval of k=5 documents of about 1 KB each, and a thought.
func realisticEvents() map[string]engine.Event {
	para := strings.Repeat("The Carlsberg Laboratory in Copenhagen was founded in 1875 to study brewing chemistry. ", 12)[:1024]
	docs := make([]sources.Document, 5)
	for i := range docs {
		docs[i] = sources.Document{ID: fmt.Sprintf("doc-%d#%d", i, i), Title: fmt.Sprintf("Document %d", i),
			Text: para, Source: "local:default", Score: 12.5 - float64(i)}
	}
	return map[string]engine.Event{
		"retrieval_5x1KB": {Step: 1, Payload: engine.Retrieval{Source: "local:default", Query: "Danish chemist who introduced the concept of pH", Docs: docs}},
		"thought":         {Step: 1, Payload: engine.Thought{Role: "step", Text: "I need to identify the Danish plant ecologist who assisted a Danish chemist famous for introducing the concept of pH. First I will find the chemist."}},
	}
}

// BenchmarkAppendEventSizes measures one committed event (its own
// transaction, WAL mode, synchronous=NORMAL, on the test's temp directory)
// for realistic event sizes.
func BenchmarkAppendEventSizes(b *testing.B) {
	for _, name := range []string{"retrieval_5x1KB", "thought"} {
		ev := realisticEvents()[name]
		b.Run(name, func(b *testing.B) {
			s := openTemp(b)
			ctx := context.Background()
			if err := s.CreateSession(ctx, Session{ID: "bench", Question: fixture.Question}); err != nil {
				b.Fatal(err)
			}
			ev.Session = "bench"
			ev.Time = time.Now()
			b.ReportAllocs()
			seq := 0
			for b.Loop() {
				seq++
				ev.Seq = seq
				if err := s.AppendEvent(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendEventsBatch measures events committed in batches of n in
// one transaction (as the delivery pipeline does when events queue up
// behind a commit); ns/event is the cost per event.
func BenchmarkAppendEventsBatch(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("retrieval_5x1KB/batch=%d", n), func(b *testing.B) {
			s := openTemp(b)
			ctx := context.Background()
			if err := s.CreateSession(ctx, Session{ID: "bench", Question: fixture.Question}); err != nil {
				b.Fatal(err)
			}
			ev := realisticEvents()["retrieval_5x1KB"]
			ev.Session, ev.Time = "bench", time.Now()
			batch := make([]engine.Event, n)
			seq := 0
			for b.Loop() {
				for i := range batch {
					seq++
					batch[i] = ev
					batch[i].Seq = seq
				}
				if err := s.AppendEvents(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(seq), "ns/event")
		})
	}
}
