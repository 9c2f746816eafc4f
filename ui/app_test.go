package ui

import (
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/ui/internal/scripted"
)

func TestAskScreenLiveRun(t *testing.T) {
	h := newHarness(t)
	h.golden("welcome", "Ask a question below", "pref wiki")
	h.runner.pauseBefore(func(ev engine.Event) bool { return ev.Type == engine.EventThought && ev.Step == 3 })
	h.ask(scripted.Question)
	<-h.runner.paused
	h.golden("streaming", "Thinking…", "Step 3")
	close(h.runner.resume)
	h.clock.Set(testStart.Add(18 * time.Second))
	h.golden("final", "Final answer", "Counts")
	q, s, _ := h.runner.last()
	if q != scripted.Question || s.Web != engine.WebAuto || s.Model != "qwen2.5:7b-instruct" {
		t.Errorf("runner got question %q, settings web=%q model=%q", q, s.Web, s.Model)
	}
}
