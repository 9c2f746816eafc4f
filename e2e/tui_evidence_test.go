package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// The workspace shows, under the final answer's sources, the quote of
// source [1] that supports a cited claim, highlighted (a quote bar; the
// world runs with NO_COLOR, so no colour is asserted), and
// marks the claim whose cited source says nothing about it.
func TestTUIEvidenceQuoteInTmux(t *testing.T) {
	w := newWorld(t, evidenceScript(), fakellm.ChunkDelay(2*time.Millisecond))
	w.write("velloran.md", velloran)
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL(), "-k", "1"}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("start", 15*time.Second, "Ask a question")
	s.text("When was the Velloran Institute founded?")
	s.keys("Enter")
	const quoted = "┃ “Its library holds forty thousand"
	scr := s.waitFor("quote", 20*time.Second, "Final answer", quoted, "no support found in the cited source")
	if strings.Contains(scr, unusedLine) {
		t.Errorf("the workspace shows the whole passage under the sources:\n%s", scr)
	}
	one, q, two := strings.Index(scr, "[1] Velloran"), strings.Index(scr, quoted), strings.Index(scr, "[2] carlsberg")
	if one < 0 || q < one || (two >= 0 && two < q) {
		t.Errorf("quote not under source [1]:\n%s", scr)
	}
}

// In the workspace, ] steps to the answer's second claim (its verdict
// shown under the answer) and e opens its cited passage: the whole of
// source [1], with the sentence that supports the claim highlighted
// (reverse video, the world runs with NO_COLOR) and the other sentences
// not; ] again reaches the claim whose source says nothing about it.
func TestTUIEvidencePassageInTmux(t *testing.T) {
	w := newWorld(t, evidenceScript(), fakellm.ChunkDelay(2*time.Millisecond))
	w.write("velloran.md", velloran)
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL(), "-k", "1"}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("start", 15*time.Second, "Ask a question")
	s.text("When was the Velloran Institute founded?")
	s.keys("Enter")
	s.waitFor("answer", 20*time.Second, "Final answer", "no support found in the cited source")
	s.keys("Tab")
	s.keys("]")
	s.waitFor("first claim", 5*time.Second, "▶ Claim 1 of 3")
	s.keys("]")
	s.waitFor("second claim", 5*time.Second, "▶ Claim 2 of 3 · ✓ supported · cites [1]")
	s.keys("e")
	s.waitFor("passage", 5*time.Second, "─ Claim 2 of 3", "[1] Velloran", unusedLine)
	coloured, err := exec.Command("tmux", "-L", s.socket, "capture-pane", "-e", "-p", "-t", s.name).CombinedOutput()
	if err != nil {
		t.Fatalf("capture-pane: %v", err)
	}
	pane := string(coloured)
	if i := strings.Index(pane, "[1] Velloran"); i >= 0 {
		pane = pane[i:] // the passage, below the claim's own text
	}
	if !reversed(pane, "Its library") {
		t.Errorf("the supporting sentence is not highlighted:\n%q", coloured)
	}
	for _, other := range []string{"The Velloran Institute was founded", "The building was"} {
		if reversed(pane, other) {
			t.Errorf("%q is highlighted but supports another claim or none:\n%q", other, coloured)
		}
	}
	s.keys("]")
	s.waitFor("unsupported claim", 5*time.Second, "─ Claim 3 of 3", "⚠ no support found in the cited source", "[2] carlsberg")
	s.keys("Escape")
	s.waitFor("closed", 5*time.Second, "▶ Claim 3 of 3", "Final answer")
}

// reversed reports whether text is on the captured pane in reverse video:
// the last SGR sequence before it turns reverse (7) on.
func reversed(pane, text string) bool {
	i := strings.Index(pane, text)
	if i < 0 {
		return false
	}
	j := strings.LastIndex(pane[:i], "\x1b[")
	if j < 0 {
		return false
	}
	end := strings.IndexByte(pane[j:], 'm')
	if end < 0 {
		return false
	}
	for _, p := range strings.Split(pane[j+2:j+end], ";") {
		if p == "7" {
			return true
		}
	}
	return false
}
