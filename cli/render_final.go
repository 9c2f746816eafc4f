package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/prefrag/prefrag/engine"
)

// finalBlock prints the final answer, its sources and the run's counts.
func (r textRenderer) finalBlock(w io.Writer, ev engine.Event, p engine.Final) {
	fmt.Fprintln(w, "\n────────")
	status := ""
	if p.Forced {
		status = " (forced at the step limit)"
	}
	if p.Cancelled {
		status = " (cancelled; best partial answer)"
	}
	switch answer := strings.TrimSpace(clean(p.Answer)); {
	case answer == "" && p.Cancelled:
		fmt.Fprintln(w, "Cancelled before any answer.")
	case answer == "":
		fmt.Fprintf(w, "Final answer%s: none (the model gave no answer)\n", status)
	default:
		fmt.Fprintf(w, "Final answer%s:\n%s\n", status, indent(answer, "  "))
	}
	if len(p.InvalidCitations) > 0 {
		fmt.Fprintf(w, "  ! cites documents it never saw: %v\n", p.InvalidCitations)
	}
	evid := r.takeEvidence()
	unbackedLines(w, evid)
	r.sourceList(w, ev.Time, p, evid)
	if c := p.Counts; c != nil {
		r.countsLine(w, ev, *c, "")
	}
}

// countsLine prints a run's counts on one line, with what became of it
// (" · the run failed") when it did not end with an answer. In a thread
// the counts are the turn's own, and say so.
func (r textRenderer) countsLine(w io.Writer, ev engine.Event, c engine.Counts, outcome string) {
	if n := engine.TurnOf(ev); n > 1 || r.thread {
		fmt.Fprintf(w, "Turn %d: ", n)
	}
	fmt.Fprintf(w, "LLM calls %d (%s) · retrievals local %d, %sweb %d, used %d · tokens in %d (cached %d) out %d · %.1fs%s\n",
		c.LLMCalls, callKinds(c), c.LocalRetrievals, mcpCount(c, "mcp %d, "), c.WebRetrievals, c.UsedRetrievals,
		c.PromptTokens, c.CachedPromptTokens, c.OutputTokens, float64(c.TotalMillis)/1000, outcome)
}

// mcpCount is the MCP searches in format, "" when there were none (a run
// without MCP servers reads as it always has).
func mcpCount(c engine.Counts, format string) string {
	if c.MCPRetrievals == 0 {
		return ""
	}
	return fmt.Sprintf(format, c.MCPRetrievals)
}

// callKinds names the calls counted besides the reasoning steps: the
// judge's always, the follow-up rewrites and the claim checks
// (--verify-claims) when there were any.
func callKinds(c engine.Counts) string {
	kinds := fmt.Sprintf("judge %d", c.JudgeCalls)
	if c.RewriteCalls > 0 {
		kinds += fmt.Sprintf(", rewrite %d", c.RewriteCalls)
	}
	if c.VerifyCalls > 0 {
		kinds += fmt.Sprintf(", claim check %d", c.VerifyCalls)
	}
	return kinds
}

// gateLine prints the retrieval gate's decision and why, then the queries
// it asks for or the heuristic answer it drafted.
func gateLine(w io.Writer, p engine.Gate) {
	decision := "answered without retrieval"
	if p.Retrieve {
		decision = "retrieval needed"
	}
	if p.Analysis != "" {
		decision += " — " + hang(p.Analysis)
	}
	fmt.Fprintf(w, "Gate: %s\n", decision)
	if len(p.Queries) > 0 {
		qs := make([]string, len(p.Queries))
		for i, q := range p.Queries {
			qs[i] = fmt.Sprintf("%q", clean(q))
		}
		fmt.Fprintf(w, "      queries: %s\n", strings.Join(qs, ", "))
	}
	if p.HeuristicAnswer != "" {
		fmt.Fprintf(w, "      heuristic answer: %s\n", subHang(p.HeuristicAnswer))
	}
}

// stepList is " of steps 1, 2" for a refinement's refined steps.
func stepList(steps []int) string {
	if len(steps) == 0 {
		return ""
	}
	parts := make([]string, len(steps))
	for i, n := range steps {
		parts[i] = fmt.Sprint(n)
	}
	noun := " of steps "
	if len(steps) == 1 {
		noun = " of step "
	}
	return noun + strings.Join(parts, ", ")
}
