package engine

import (
	"testing"

	"github.com/prefrag/prefrag/evidence"
)

// TestWeakFor: a quote is weak for the claims whose citation of its
// document is weak, not for a claim it supports well from another verdict.
func TestWeakFor(t *testing.T) {
	q1 := evidence.Quote{N: 1, Quote: "A.", Start: 0, End: 2}
	q2 := evidence.Quote{N: 2, Quote: "B.", Start: 0, End: 2}
	ev := Evidence{Claims: []evidence.Result{
		{Text: "well", Citations: []int{1}, Verdict: evidence.Supported, Support: []evidence.Quote{q1},
			Cited: []evidence.Citation{{N: 1, Verdict: evidence.Supported}}},
		{Text: "mixed", Citations: []int{1, 2}, Verdict: evidence.Supported, Support: []evidence.Quote{q1, q2},
			Cited: []evidence.Citation{{N: 1, Verdict: evidence.Weak}, {N: 2, Verdict: evidence.Supported}}},
		{Text: "old record", Citations: []int{2}, Verdict: evidence.Weak, Support: []evidence.Quote{q2}},
	}}
	names := func(rs []evidence.Result) (out []string) {
		for _, r := range rs {
			out = append(out, r.Text)
		}
		return out
	}
	if got := names(ev.WeakFor(q1)); len(got) != 1 || got[0] != "mixed" {
		t.Errorf("WeakFor(q1) = %q, want [mixed]", got)
	}
	if got := names(ev.WeakFor(q2)); len(got) != 1 || got[0] != "old record" {
		t.Errorf("WeakFor(q2) = %q, want [old record]", got)
	}
}
