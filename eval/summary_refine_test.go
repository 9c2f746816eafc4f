package eval

import (
	"strings"
	"testing"
)

func TestSummaryRefinementsPerQuestion(t *testing.T) {
	s := Summarize(summaryFixture())
	for _, d := range s.Datasets {
		for _, r := range d.Rows {
			want := 0
			if d.Name == "hotpot" && r.Strategy == "prefrag" {
				want = 2
			}
			if r.Refinements != want {
				t.Errorf("%s %s: %d refinements, want %d", d.Name, r.Strategy, r.Refinements, want)
			}
		}
	}
	md := s.Markdown(nil)
	for _, line := range []string{"### Observation refinement", "| PrefRAG (`prefrag`) | 2 | 0.67 |", "| ReAct_Mix w/ LR ⊕ WR (`react-mix`) | – | – |"} {
		if !strings.Contains(md, line) {
			t.Errorf("summary.md lacks %q", line)
		}
	}
}
