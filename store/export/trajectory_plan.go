package export

import (
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/engine"
)

// gate writes the retrieval gate's decision, its analysis, the queries it
// asked for and the heuristic answer it drafted.
func (r *report) gate(b *strings.Builder, p engine.Gate) {
	decision := "answered without retrieval"
	if p.Retrieve {
		decision = "retrieval needed"
	}
	fmt.Fprintf(b, "**Retrieval gate: %s.** %s\n\n", decision, block(p.Analysis))
	if len(p.Queries) > 0 {
		qs := make([]string, len(p.Queries))
		for i, q := range p.Queries {
			qs[i] = "“" + inline(q) + "”"
		}
		fmt.Fprintf(b, "Queries: %s.\n\n", strings.Join(qs, "; "))
	}
	if p.HeuristicAnswer != "" {
		fmt.Fprintf(b, "> *Heuristic answer:* %s\n\n", quoted(p.HeuristicAnswer))
	}
}

// refinedSteps is " of steps 1, 2" for a refinement's refined steps.
func refinedSteps(steps []int) string {
	if len(steps) == 0 {
		return ""
	}
	noun := " of steps "
	if len(steps) == 1 {
		noun = " of step "
	}
	return noun + numbers(steps)
}

func numbers(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}
