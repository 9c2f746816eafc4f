package eval

import (
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/engine"
)

// writeRefinements adds the observation refinement table: per strategy,
// how often earlier observations were refined to fit the context budget
// (total and per question). Strategies without refinement show "–". The
// table is left out when no strategy of the dataset refines.
func (d DatasetSummary) writeRefinements(b *strings.Builder) {
	any := false
	for _, r := range d.Rows {
		if s, ok := engine.LookupStrategy(r.Strategy); ok && s.Refine {
			any = true
		}
	}
	if !any {
		return
	}
	b.WriteString("\n### Observation refinement\n\n")
	b.WriteString("Refinements condense earlier observations when a prompt would pass the context budget (refine_budget); each breaks prompt-cache reuse once.\n\n")
	b.WriteString("| Method | refinements | per question |\n|---|---:|---:|\n")
	for _, r := range d.Rows {
		if s, ok := engine.LookupStrategy(r.Strategy); !ok || !s.Refine {
			fmt.Fprintf(b, "| %s | – | – |\n", rowLabel(r.Strategy))
			continue
		}
		per := 0.0
		if r.Questions > 0 {
			per = float64(r.Refinements) / float64(r.Questions)
		}
		fmt.Fprintf(b, "| %s | %d | %.2f |\n", rowLabel(r.Strategy), r.Refinements, per)
	}
}
