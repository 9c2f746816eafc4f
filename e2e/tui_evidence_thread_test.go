package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// In a two-turn thread the workspace steps through the claims of both
// answers: from turn 2's answer, [ steps back across the turn into turn
// 1's claims (the status line names turn and claim each time), the view
// scrolls up to turn 1's answer with the claim's sentence highlighted in
// it (after a "▸" marker, reverse video: the world runs with NO_COLOR),
// and e opens turn 1's cited passage with the supporting sentence
// highlighted.
func TestTUIEvidenceThreadClaimsInTmux(t *testing.T) {
	w := newWorld(t, evidenceThreadScript(), fakellm.ChunkDelay(2*time.Millisecond))
	w.write("velloran.md", velloran)
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL(), "-k", "1"}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("start", 15*time.Second, "Ask a question")
	s.text("When was the Velloran Institute founded?")
	s.keys("Enter")
	s.waitFor("answer", 20*time.Second, "Final answer", "no support found in the cited source", "follow-up · turn 2")
	s.text(evidenceFollowUp)
	s.keys("Enter")
	s.waitFor("follow-up answer", 20*time.Second, "Final answer · turn 2", "no source cited: It is open to visitors", "follow-up · turn 3")

	// To the trajectory; each key waits for the claim it reaches.
	s.keys("Tab")
	s.waitFor("trajectory focus", 5*time.Second, "] next claim")
	for _, want := range []string{"turn 2 · claim 2/2", "turn 2 · claim 1/2", "turn 1 · claim 3/3", "turn 1 · claim 2/3"} {
		s.keys("[")
		s.waitFor(want, 5*time.Second, want)
	}
	s.waitFor("turn 1's claim in its answer", 5*time.Second,
		"Final answer · turn 1", "▸ Its library holds forty", "▶ Turn 1 · claim 2 of 3 · ✓ supported · cites [1]")
	pane := colouredPane(t, s)
	if !reversed(pane, "▸ Its library holds") {
		t.Errorf("turn 1's claim is not highlighted in its answer:\n%q", pane)
	}
	if reversed(pane, "The Velloran Institute was founded in 1887 by Ada Marsh [1]") {
		t.Errorf("another sentence of the answer is highlighted:\n%q", pane)
	}

	s.keys("e")
	s.waitFor("turn 1's passage", 5*time.Second, "─ Turn 1 · claim 2 of 3", "[1] Velloran", unusedLine)
	pane = colouredPane(t, s)
	if i := strings.Index(pane, "[1] Velloran"); i >= 0 {
		pane = pane[i:] // the passage, below the claim's own text
	}
	if !reversed(pane, "Its library") {
		t.Errorf("turn 1's supporting sentence is not highlighted in its passage:\n%q", pane)
	}
	for _, other := range []string{"The Velloran Institute was founded", "The building was"} {
		if reversed(pane, other) {
			t.Errorf("%q is highlighted but does not support turn 1's claim 2:\n%q", other, pane)
		}
	}
}

// colouredPane is the pane with its SGR sequences.
func colouredPane(t *testing.T, s *tmuxSession) string {
	t.Helper()
	out, err := exec.Command("tmux", "-L", s.socket, "capture-pane", "-e", "-p", "-t", s.name).CombinedOutput()
	if err != nil {
		t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}
