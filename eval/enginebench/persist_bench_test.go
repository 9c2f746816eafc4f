package enginebench

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/prefrag/prefrag/app/delivery"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/store"
)

// BenchmarkQuestionPersistence measures one question at zero LLM latency
// (the scripted oracle, in-memory sources) with its events persisted, against
// not persisting them at all ("off"): "sync" commits each event on the
// engine's goroutine (as prefrag did before app/delivery), "pipeline"
// is what app.Ask does now (batched commits on the pipeline's goroutines,
// then delivery). The time is the engine's run until it returns, plus, for
// "pipeline", until everything is stored and delivered (Close). ns/op is
// one question; ns/llm_call is the same time per LLM call (a step);
// engine_ns/llm_call counts only the engine's run (until Run returns: what
// the engine itself waits for), without the pipeline draining after it.
func BenchmarkQuestionPersistence(b *testing.B) {
	qs := Synthetic(50, 1)
	for _, mode := range []string{"off", "sync", "pipeline"} {
		b.Run(mode, func(b *testing.B) {
			bench, err := New(Config{Questions: qs})
			if err != nil {
				b.Fatal(err)
			}
			st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "prefrag.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			calls, events, i := 0, 0, 0
			var total, engineTime time.Duration
			for b.Loop() {
				i++
				id := fmt.Sprintf("s%06d", i)
				q := qs[i%len(qs)]
				bench.model.startQuestion()
				if mode != "off" {
					if err := st.CreateSession(ctx, store.Session{ID: id, Question: q.Text}); err != nil {
						b.Fatal(err)
					}
				}
				show := func(ev engine.Event) {
					if ev.Type() != engine.EventToken {
						events++
					}
				}
				emit := show
				var pipe *delivery.Pipeline
				switch mode {
				case "sync":
					emit = func(ev engine.Event) {
						if err := st.AppendEvent(ctx, ev); err != nil {
							b.Fatal(err)
						}
						show(ev)
					}
				case "pipeline":
					pipe = delivery.New(func(evs []engine.Event) error { return st.AppendEvents(ctx, evs) }, show, 0)
					emit = pipe.Emit
				}
				t0 := time.Now()
				res, err := bench.eng.Run(ctx, engine.Request{SessionID: id, Question: q.Text, Settings: bench.s.Settings, Wiring: bench.s.Wiring, Emit: emit})
				engineTime += time.Since(t0)
				if pipe != nil {
					if err := pipe.Close(); err != nil {
						b.Fatal(err)
					}
				}
				total += time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				calls += res.Counts.LLMCalls
			}
			if calls > 0 {
				b.ReportMetric(float64(total.Nanoseconds())/float64(calls), "ns/llm_call")
				b.ReportMetric(float64(engineTime.Nanoseconds())/float64(calls), "engine_ns/llm_call")
				b.ReportMetric(float64(events)/float64(i), "events/question")
			}
		})
	}
}
