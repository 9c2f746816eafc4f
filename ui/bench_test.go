package ui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
	"github.com/prefrag/prefrag/ui/trajectory"
)

// streamingModel is the root model showing a live run that has done 50
// steps, as the program holds it.
func streamingModel(b *testing.B) (*Model, []string) {
	m := New(context.Background(), Deps{}, Options{Settings: scripted.Settings(), NoColor: true, Now: newClock().Now})
	m.resize(100, 40)
	a := m.ask
	a.run = newStream(1, make(chan struct{}))
	a.running = true
	a.traj = trajectory.FromEvents(scripted.Long(50, testStart))
	a.tv.set(a.traj, true)
	if len(a.traj.Blocks) != 50 {
		b.Fatalf("%d blocks", len(a.traj.Blocks))
	}
	toks := scripted.Split(strings.Repeat("Thought: the documents say the river is the Vltava and\n", 200))[:2000]
	return m, toks
}

func tokenBatch(tok string) batchMsg {
	return batchMsg{stream: 1, msgs: []tea.Msg{runEventMsg{ev: engine.Event{Step: 51, Payload: engine.Token{Role: "step", Text: tok}}}}}
}

// BenchmarkAppTokens is what the program does while 2,000 tokens stream
// into step 51 of a 50-step run, one token per message (the worst case:
// the bridge batches tokens that arrive together): Update, then View after
// every message, and the throttled re-render whenever its tick is due —
// here every 25 tokens, i.e. 8 renders a second at 200 tokens/s. One op is
// the whole stream.
func BenchmarkAppTokens(b *testing.B) {
	m, toks := streamingModel(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.ask.traj.Apply(engine.Event{Step: 50, Payload: engine.Thought{Text: "reset"}})
		for j, tok := range toks {
			m.Update(tokenBatch(tok))
			if j%25 == 24 {
				m.Update(refreshMsg{stream: 1})
			}
			_ = m.View()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(toks)), "ns/token")
}

// BenchmarkAppFrame is one frame (View) of that screen, without new
// content: what a key press or a clock tick costs.
func BenchmarkAppFrame(b *testing.B) {
	m, _ := streamingModel(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

// BenchmarkAppRefresh is one throttled re-render of the trajectory while a
// long thought streams (completed blocks come from the cache).
func BenchmarkAppRefresh(b *testing.B) {
	m, toks := streamingModel(b)
	for _, tok := range toks[:1000] {
		m.ask.traj.Apply(engine.Event{Step: 51, Payload: engine.Token{Role: "step", Text: tok}})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.ask.traj.Apply(engine.Event{Step: 51, Payload: engine.Token{Role: "step", Text: "x "}})
		m.ask.tv.refresh()
	}
}
