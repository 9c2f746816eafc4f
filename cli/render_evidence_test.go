package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
)

// TestRenderEvidenceQuotesUnderSources: the text output prints each quote
// under the source it comes from (one line, elided in the middle when
// long), marks the claims without support, and forgets the evidence after
// the final block (the next turn's sources get no stale quote).
func TestRenderEvidenceQuotesUnderSources(t *testing.T) {
	long := "Its library holds forty thousand maps " + strings.Repeat("and charts ", 20) + "of the northern coast."
	ev := engine.Evidence{Claims: []evidence.Result{
		{Text: "Founded in 1887 [1].", Citations: []int{1}, Verdict: evidence.Supported,
			Support: []evidence.Quote{{N: 1, Quote: "The institute was founded in 1887.", Start: 0, End: 34, Score: 0.8}}},
		{Text: "It holds maps [1].", Citations: []int{1}, Verdict: evidence.Supported,
			Support: []evidence.Quote{{N: 1, Quote: long, Start: 35, End: 35 + len(long), Score: 0.6}}},
		{Text: "Its director won a Nobel prize [2].", Citations: []int{2}, Verdict: evidence.Unsupported},
	}}
	final := engine.Final{Answer: "Founded in 1887 [1]. It holds maps [1]. Its director won a Nobel prize [2].", Citations: []int{1, 2},
		Sources:    []sources.Document{{ID: "a", Title: "Velloran", Source: "local:kb"}, {ID: "b", Title: "Harbour", Source: "local:kb"}},
		SourceNums: []int{1, 2}}
	var b bytes.Buffer
	out := newEventWriter(&b, false, false)
	out.write(engine.Event{Payload: ev})
	out.write(engine.Event{Payload: final})
	out.write(engine.Event{Payload: final})
	got := b.String()
	_, second, _ := strings.Cut(got, "────────\n")
	_, second, _ = strings.Cut(second, "────────")
	for _, want := range []string{
		"[1] Velloran", "        “The institute was founded in 1887.”", "“Its library holds forty", "of the northern coast.”",
		"! no support found in [2]: Its director won a Nobel prize [2].",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, long) {
		t.Errorf("long quote not elided:\n%s", got)
	}
	if i, j := strings.Index(got, "[1] Velloran"), strings.Index(got, "founded in 1887.”"); i < 0 || j < i || j > strings.Index(got, "[2] Harbour") {
		t.Errorf("quote not under its source:\n%s", got)
	}
	if strings.Contains(second, "“") || strings.Contains(second, "no support") {
		t.Errorf("second final block shows stale evidence:\n%s", second)
	}
}

// TestCountsLineNamesClaimCheck: the counts line names the claim check
// (--verify-claims) it counts among the LLM calls, and the follow-up
// rewrite; a run without them names neither.
func TestCountsLineNamesClaimCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts engine.Counts
		want   string
		absent []string
	}{
		{"claim check", engine.Counts{LLMCalls: 5, JudgeCalls: 2, VerifyCalls: 1}, "LLM calls 5 (judge 2, claim check 1) ·", nil},
		{"rewrite and check", engine.Counts{LLMCalls: 6, JudgeCalls: 2, RewriteCalls: 1, VerifyCalls: 1}, "LLM calls 6 (judge 2, rewrite 1, claim check 1) ·", nil},
		{"neither", engine.Counts{LLMCalls: 4, JudgeCalls: 2}, "LLM calls 4 (judge 2) ·", []string{"claim check", "rewrite"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			c := tc.counts
			newEventWriter(&b, false, false).write(engine.Event{Payload: engine.Final{Answer: "1887.", Counts: &c}})
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, b.String())
			}
			for _, a := range tc.absent {
				if strings.Contains(b.String(), a) {
					t.Errorf("output names %q:\n%s", a, b.String())
				}
			}
		})
	}
}
