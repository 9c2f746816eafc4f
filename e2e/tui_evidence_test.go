package e2e

import (
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
