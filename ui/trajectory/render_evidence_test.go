package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
)

// TestRenderEvidenceQuotes: the workspace shows, under the final answer's
// sources, the quote of each source that supports a claim, and marks the
// claim without support; a follow-up turn's final has its own (none here).
func TestRenderEvidenceQuotes(t *testing.T) {
	a := sources.Document{ID: "a", Title: "Velloran", Source: "local:kb"}
	b := sources.Document{ID: "b", Title: "Harbour", Source: "local:kb"}
	tr := New()
	for _, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "Q?"}},
		{Payload: engine.Evidence{Claims: []evidence.Result{
			{Text: "Founded in 1887.", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: "The institute was founded in 1887.", End: 34, Score: 0.8}}},
			{Text: "Its director won a Nobel prize.", Citations: []int{2}, Verdict: evidence.Unsupported},
		}}},
		{Payload: engine.Final{Answer: "Founded in 1887 [1]. Its director won a Nobel prize [2].", Citations: []int{1, 2},
			Sources: []sources.Document{a, b}, SourceNums: []int{1, 2}}},
	} {
		tr.Apply(ev)
	}
	screen := ansi.Strip(plainRenderer().Render(tr, View{Width: 100, Upto: -1, ShowFinal: true}).Content())
	final := screen[strings.Index(screen, "Final answer"):]
	one, quote, two := strings.Index(final, "[1] Velloran"), strings.Index(final, "┃ “The institute was founded in 1887.”"), strings.Index(final, "[2] Harbour")
	if one < 0 || quote < one || two < quote {
		t.Errorf("quote not under source [1]:\n%s", final)
	}
	if !strings.Contains(final, "⚠ no support found in the cited source: Its director won a Nobel prize.") {
		t.Errorf("unsupported claim not marked:\n%s", final)
	}
}

// TestRenderModelDoubt: when the judge model's claim check (--verify-claims)
// doubts a claim the aligner found supported, the workspace says so under
// the answer with the model's reason, and the claim's passage view says it
// too; a claim the model agrees with is not marked under the answer.
func TestRenderModelDoubt(t *testing.T) {
	a := sources.Document{ID: "a", Title: "Velloran", Source: "local:kb", Text: "The institute was founded in 1887. It draws historical maps."}
	tr := New()
	for _, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "Q?"}},
		{Payload: engine.Evidence{Claims: []evidence.Result{
			{Text: "Founded in 1887.", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: "The institute was founded in 1887.", End: 34, Score: 0.8}}},
			{Text: "It maps only the coast.", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: "It draws historical maps.", Start: 35, End: 60, Score: 0.7}}},
		}, Checks: []engine.ClaimCheck{
			{Claim: 0, Verdict: "supported", Analysis: "The quote gives 1887."},
			{Claim: 1, Verdict: "unsupported", Analysis: "The quote says historical maps, not only of the coast."},
		}}},
		{Payload: engine.Final{Answer: "Founded in 1887 [1]. It maps only the coast [1].", Citations: []int{1},
			Sources: []sources.Document{a}, SourceNums: []int{1}}},
	} {
		tr.Apply(ev)
	}
	r := plainRenderer()
	screen := ansi.Strip(r.Render(tr, View{Width: 100, Upto: -1, ShowFinal: true}).Content())
	final := screen[strings.Index(screen, "Final answer"):]
	for _, want := range []string{
		"⚠ the judge model doubts the quotes for: It maps only the coast.",
		"The quote says historical maps, not only of the coast.",
	} {
		if !strings.Contains(final, want) {
			t.Errorf("the workspace lacks %q:\n%s", want, final)
		}
	}
	if strings.Contains(final, "doubts the quotes for: Founded") {
		t.Errorf("a claim the model agrees with is marked:\n%s", final)
	}
	p := ansi.Strip(strings.Join(r.Passage(tr, ClaimRef{Turn: 1, N: 2}, 80).Lines, "\n"))
	if !strings.Contains(p, "⚠ the judge model doubts the quotes support it") || !strings.Contains(p, "not only of the coast") {
		t.Errorf("the passage view lacks the model's doubt:\n%s", p)
	}
	p = ansi.Strip(strings.Join(r.Passage(tr, ClaimRef{Turn: 1, N: 1}, 80).Lines, "\n"))
	if !strings.Contains(p, "✓ the judge model finds the quotes support it") {
		t.Errorf("the passage view lacks the model's agreement:\n%s", p)
	}
}

// TestRenderCountsNameClaimCheck: the workspace's counts name the claim
// check (--verify-claims) among the LLM calls, and a follow-up's rewrite;
// without them the line is as before.
func TestRenderCountsNameClaimCheck(t *testing.T) {
	for _, tc := range []struct {
		counts engine.Counts
		want   string
	}{
		{engine.Counts{LLMCalls: 5, JudgeCalls: 2, VerifyCalls: 1}, "5 LLM calls (2 judge, 0 forced, 1 claim check) ·"},
		{engine.Counts{LLMCalls: 7, JudgeCalls: 2, RewriteCalls: 1, VerifyCalls: 2}, "7 LLM calls (2 judge, 0 forced, 1 rewrite, 2 claim checks) ·"},
		{engine.Counts{LLMCalls: 4, JudgeCalls: 2, ForcedCalls: 1}, "4 LLM calls (2 judge, 1 forced) ·"},
	} {
		if got := CountsLine(tc.counts); !strings.HasPrefix(got, tc.want) {
			t.Errorf("CountsLine(%+v) = %q, want it to start %q", tc.counts, got, tc.want)
		}
	}
}
