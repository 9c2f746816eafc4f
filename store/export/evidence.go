package export

import (
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
)

// Evidence in the Markdown export: under each cited source the sentences of
// it that support a claim of the answer (quoted, escaped like every stored
// text), and before the sources the claims without support.

// unbacked marks the answer's claims that have no support in the sources
// they cite, or cite none.
func (r *report) unbacked(b *strings.Builder) {
	if r.tr.Evidence == nil {
		return
	}
	ev := r.tr.Evidence
	var lines []string
	for _, c := range ev.Unbacked() {
		why := "cites no source"
		if c.Verdict == evidence.Unsupported {
			why = "no support found in " + numberList(c.Citations)
		}
		lines = append(lines, fmt.Sprintf("- ⚠ %s — *%s*\n", inline(c.Text), why))
	}
	for _, ck := range ev.Doubted() {
		lines = append(lines, fmt.Sprintf("- ⚠ %s — *the judge model finds no support in its quotes: %s*\n", inline(ev.Claims[ck.Claim].Text), inline(ck.Analysis)))
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("*Claims without support:*\n\n")
	b.WriteString(strings.Join(lines, ""))
	b.WriteString("\n")
}

// quotes writes the supporting sentences of source n under its item,
// each followed by the claims it supports only weakly.
func (r *report) quotes(b *strings.Builder, n int) {
	if r.tr.Evidence == nil {
		return
	}
	for _, q := range r.tr.Evidence.QuotesOf(n) {
		fmt.Fprintf(b, "  > “%s”\n", inline(q.Quote))
		for _, c := range r.tr.Evidence.WeakFor(q) {
			fmt.Fprintf(b, "  >\n  > *~ weak support for:* %s\n", inline(c.Text))
		}
	}
}

// evidenceNote is the evidence event in the appendix: its tally.
func evidenceNote(b *strings.Builder, p engine.Evidence) {
	n := map[evidence.Verdict]int{}
	for _, c := range p.Claims {
		n[c.Verdict]++
	}
	fmt.Fprintf(b, "**Evidence.** The answer's %d claims were aligned with the sentences of the sources they cite: %d supported, %d weakly supported, %d without support in the cited source, %d citing nothing.\n\n",
		len(p.Claims), n[evidence.Supported], n[evidence.Weak], n[evidence.Unsupported], n[evidence.Uncited])
}
