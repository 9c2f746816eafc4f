package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Issue 21 in the workspace: a long thread on a 4,096-token context stays
// responsive turn after turn, and the trajectory says what the last
// follow-up carried and left out.
func TestTUILongThreadInTmux(t *testing.T) {
	const turns = 30
	w := newWorld(t, threadModel(), fakellm.TruncateLikeOllama(), fakellm.ChunkDelay(time.Millisecond))
	threadCorpus(t, w, turns)
	work := t.TempDir()
	s := startTmux(t, w, work, "--llm-url", w.llm.URL(), "--model", "fake-model", "--corpus", "topics", "--web", "never", "--num-ctx", "4096")
	s.waitFor("start", 15*time.Second, "Ask a question")
	var slowest time.Duration
	for turn := 1; turn <= turns; turn++ {
		start := time.Now()
		s.text("What is known about " + topicName(turn) + "?")
		s.keys("Enter")
		// Answered: the input offers the next turn.
		s.waitFor(fmt.Sprintf("turn %d", turn), 20*time.Second, fmt.Sprintf("follow-up · turn %d", turn+1))
		slowest = max(slowest, time.Since(start))
	}
	t.Logf("slowest turn, typing to answer on screen: %s", slowest.Round(time.Millisecond))
	if slowest > 10*time.Second {
		t.Errorf("a turn took %s", slowest)
	}
	for _, g := range w.llm.Generations() {
		if g.KeptTokens > 0 || fakellm.ApproxTokens(g.Prompt) >= 4096 {
			t.Errorf("a %d-token prompt passed the context", fakellm.ApproxTokens(g.Prompt))
		}
	}
	// The last follow-up's context, in the trajectory: paging up from the
	// bottom, the first "Context" line is turn 30's.
	// The focus is waited for first (the view is at the bottom already):
	// paging tells b's effect by the screen changing.
	s.keys("Tab", "G")
	s.waitFor("trajectory focus", keyWait, "next doc")
	pageUntil(t, s, "b", 60, "Context      carried")
	s.waitFor("thread context", 5*time.Second, "Context      carried ", "left out", "(they keep their")

	// The stored thread in the stepper: the last turn's thread-context
	// stop says what it carried and left out.
	pressed(t, s, "2", "Sessions (1)")
	pressed(t, s, "Enter", "session ", "turn 1/30 · step 1")
	pressed(t, s, "End", "turn 30/30")
	stepUntil(t, s, "Left", 20, "thread context")
	s.waitFor("the stepper's thread-context stop", 5*time.Second, "thread context", "turn 30/30", "carried")
}
