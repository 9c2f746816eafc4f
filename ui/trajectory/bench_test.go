package trajectory

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

// longTrajectory is a trajectory of n steps.
func longTrajectory(n int) *Trajectory { return FromEvents(scripted.Long(n, start)) }

// BenchmarkStreamingView is the view of a 50-step trajectory while 2,000
// tokens stream into step 51, rendering after every token (the worst case:
// the app itself throttles to a few renders a second). One op is the whole
// stream; ns/token is the cost of one token's render.
func BenchmarkStreamingView(b *testing.B) {
	for _, width := range []int{80, 160} {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			tr := longTrajectory(50)
			if len(tr.Blocks) != 50 {
				b.Fatalf("built %d blocks", len(tr.Blocks))
			}
			toks := scripted.Split(strings.Repeat("Thought: the documents say the river is the Vltava and ", 200))[:2000]
			r := plainRenderer()
			v := View{Width: width, Upto: -1, ShowFinal: true}
			r.Render(tr, v) // warm the block cache, as a live run has
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			lines := 0
			for i := 0; i < b.N; i++ {
				tr.ClearLive()
				for _, tok := range toks {
					tr.Apply(engine.Event{Step: 51, Payload: engine.Token{Role: "step", Text: tok}})
					out := r.Render(tr, v)
					lines = len(out.Lines)
				}
			}
			el := time.Since(start)
			b.ReportMetric(float64(el.Nanoseconds())/float64(b.N*len(toks)), "ns/token")
			b.ReportMetric(float64(lines), "lines")
		})
	}
}

// BenchmarkRenderCold renders a 50-step trajectory with empty caches (a
// resize, or opening a stored session).
func BenchmarkRenderCold(b *testing.B) {
	tr := longTrajectory(50)
	v := View{Width: 100, Upto: -1, ShowFinal: true}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		plainRenderer().Render(tr, v)
	}
}
