package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// quoteWidth is the most runes of a quote printed under a source (one
// line, elided in the middle).
const quoteWidth = 110

// evidenceMemo keeps a run's evidence event (emitted just before its final
// event) until the final block prints the quotes under the sources.
type evidenceMemo struct{ last *engine.Evidence }

// keepEvidence remembers p for the next final block.
func (r textRenderer) keepEvidence(p engine.Evidence) {
	if r.evidence != nil {
		r.evidence.last = &p
	}
}

// takeEvidence is the evidence of the run whose final block is printing
// (nil without one), forgotten for the next turn.
func (r textRenderer) takeEvidence() *engine.Evidence {
	if r.evidence == nil {
		return nil
	}
	ev := r.evidence.last
	r.evidence.last = nil
	return ev
}

// quoteLines prints the quotes of document n under its source line.
func quoteLines(w io.Writer, ev *engine.Evidence, n int) {
	if ev == nil || n <= 0 {
		return
	}
	for _, q := range ev.QuotesOf(n) {
		fmt.Fprintf(w, "        “%s”\n", textsafe.ElideMiddle(q.Quote, quoteWidth))
		for _, c := range ev.WeakFor(q) {
			fmt.Fprintf(w, "          ~ weak support for: %s\n", textsafe.ElideMiddle(c.Text, 80))
		}
	}
}

// unbackedLines marks the answer's claims that have no support.
func unbackedLines(w io.Writer, ev *engine.Evidence) {
	if ev == nil {
		return
	}
	for _, c := range ev.Unbacked() {
		claim := textsafe.ElideMiddle(c.Text, 80)
		if c.Verdict == evidence.Uncited {
			fmt.Fprintf(w, "  ! cites no source: %s\n", claim)
			continue
		}
		fmt.Fprintf(w, "  ! no support found in %s: %s\n", citeList(c.Citations), claim)
	}
	for _, ck := range ev.Doubted() {
		fmt.Fprintf(w, "  ! judge model: no support in the quotes for: %s\n", textsafe.ElideMiddle(ev.Claims[ck.Claim].Text, 80))
	}
}

func citeList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("[%d]", n)
	}
	return strings.Join(parts, " ")
}
