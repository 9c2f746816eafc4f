package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/trajectory"
)

const (
	threadPassage = "The harbour of Velloran was dredged in 1903. Its lighthouse is 40 metres tall."
	threadAnswer  = "The harbour was dredged in 1903 [1]. It has a lighthouse. The lighthouse is 40 metres tall [1]."
)

// claimsThreadEvents is a thread: the three claims of claimsEvents in turn
// 1, then a follow-up whose answer has three claims of its own (with their
// spans in the answer, as the engine gives them), the second citing
// nothing.
func claimsThreadEvents() []engine.Event {
	evs := claimsEvents()
	doc := sources.Document{ID: "h", Title: "Velloran harbour", Source: "local:wiki", Text: threadPassage}
	span := func(s string) evidence.Span {
		i := strings.Index(threadAnswer, s)
		return evidence.Span{Start: i, End: i + len(s)}
	}
	light := strings.Index(threadPassage, "Its lighthouse")
	for _, p := range []engine.Payload{
		engine.Rewrite{Original: "and its harbour?", Rewritten: "What about the harbour of the Velloran Institute?"},
		engine.Evidence{Claims: []evidence.Result{
			{Text: "The harbour was dredged in 1903.", Citations: []int{1}, Verdict: evidence.Supported, Span: span("The harbour was dredged in 1903 [1]."),
				Support: []evidence.Quote{{N: 1, Quote: threadPassage[:light-1], Start: 0, End: light - 1, Score: 0.9}},
				Cited:   []evidence.Citation{{N: 1, Verdict: evidence.Supported, Score: 0.9}}},
			{Text: "It has a lighthouse.", Verdict: evidence.Uncited, Span: span("It has a lighthouse.")},
			{Text: "The lighthouse is 40 metres tall.", Citations: []int{1}, Verdict: evidence.Supported, Span: span("The lighthouse is 40 metres tall [1]."),
				Support: []evidence.Quote{{N: 1, Quote: threadPassage[light:], Start: light, End: len(threadPassage), Score: 0.8}},
				Cited:   []evidence.Citation{{N: 1, Verdict: evidence.Supported, Score: 0.8}}},
		}},
		engine.Final{Answer: threadAnswer, Citations: []int{1}, Sources: []sources.Document{doc}, SourceNums: []int{1}},
	} {
		evs = append(evs, engine.Event{Turn: 2, Payload: p})
	}
	return evs
}

// TestTrajViewClaimsAcrossTurns: in a thread, ] and [ step through the
// claims of every turn's answer in reading order. The first [ picks the
// last claim of the answer in view (the latest), further ones step back
// into turn 1; the view scrolls to the claim's turn, marks its sentence in
// that answer (reverse video without colours, after "▸"; a claim without
// support in the warning style, after "⚠") and names turn and claim; e
// opens the cited passage of a turn-1 claim with its quote highlighted.
func TestTrajViewClaimsAcrossTurns(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{NoColor: true})
	v := newTrajView(sh)
	v.setSize(100, 14)
	v.set(trajectory.FromEvents(claimsThreadEvents()), true)

	press(v, "[")
	if got := v.claimStatus(); got != "turn 2 · claim 3/3" {
		t.Errorf("first [: claim %q, want turn 2's last", got)
	}
	press(v, "[")
	raw := v.view()
	plain := ansi.Strip(raw)
	if !strings.Contains(plain, "⚠ It has a lighthouse.") || !strings.Contains(raw, "\x1b[1;4m⚠ It has a lighthouse.") {
		t.Errorf("the uncited claim is not marked in its answer:\n%q", raw)
	}
	if !strings.Contains(plain, "▶ Turn 2 · claim 2 of 3 · ⚠ cites no source") {
		t.Errorf("panel of turn 2's claim 2 not shown:\n%s", plain)
	}

	press(v, "[", "[", "[")
	if got := v.claimStatus(); got != "turn 1 · claim 2/3" {
		t.Fatalf("[ from turn 2's first claim: claim %q, want turn 1 · claim 2/3", got)
	}
	raw = v.view()
	plain = ansi.Strip(raw)
	for _, want := range []string{"Final answer · turn 1", "▸ Its library holds forty thousand maps [1].", "▶ Turn 1 · claim 2 of 3 · ✓ supported · cites [1]"} {
		if !strings.Contains(plain, want) {
			t.Errorf("turn 1's claim 2: %q not in view (it did not scroll to turn 1?):\n%s", want, plain)
		}
	}
	if !strings.Contains(raw, "\x1b[1;7m▸ Its library") {
		t.Errorf("turn 1's claim 2 is not highlighted in its answer:\n%q", raw)
	}
	if strings.Contains(raw, "\x1b[1;7m▸ It was founded") || strings.Count(plain, "▸") != 1 {
		t.Errorf("another sentence is marked:\n%s", plain)
	}
	t.Run("turn1", func(t *testing.T) { golden.RequireEqual(t, plain) })

	press(v, "e")
	raw = v.view()
	if !strings.Contains(ansi.Strip(raw), "Turn 1 · claim 2 of 3") || !strings.Contains(raw, sh.st.QuoteMark.Render("Its library holds forty thousand maps.")) {
		t.Errorf("turn 1's passage not shown with its quote:\n%q", raw)
	}
	press(v, "]", "]")
	plain = ansi.Strip(v.view())
	if !strings.Contains(plain, "Turn 2 · claim 1 of 3") || !strings.Contains(plain, "[1] Velloran harbour") {
		t.Errorf("] in the passage did not reach turn 2's first claim and its source:\n%s", plain)
	}
	press(v, "esc", "g", "]", "]", "]", "]", "]", "]", "]", "]")
	if got := v.claimStatus(); got != "turn 2 · claim 3/3" {
		t.Errorf("] past the end: claim %q, want the last", got)
	}
}

// TestClaimsFirstKeyPicksTheAnswerInView: with the view scrolled to turn
// 1's answer the first ] starts there, not at the latest answer.
func TestClaimsFirstKeyPicksTheAnswerInView(t *testing.T) {
	v := newTrajView(newShared(context.Background(), Deps{}, Options{NoColor: true}))
	v.setSize(100, 14)
	v.set(trajectory.FromEvents(claimsThreadEvents()), false)
	press(v, "]")
	if got := v.claimStatus(); got != "turn 1 · claim 1/3" {
		t.Errorf("] from the top: %q, want turn 1's first claim", got)
	}
}

// TestStepperClaimsAcrossTurns: the stepper offers turn 1's claims from the
// stop where turn 1's answer is shown (the follow-up's rewrite), and turn
// 2's at the final answer; the status line names turn and claim.
func TestStepperClaimsAcrossTurns(t *testing.T) {
	m := New(context.Background(), Deps{}, Options{Settings: scripted.Settings(), NoColor: true})
	m.resize(120, 30)
	s := m.stepper
	s.id = "s1"
	m.screen = screenStepper
	evs := claimsThreadEvents()
	step := engine.Event{Step: 1, Payload: engine.Thought{Text: "I need the institute."}}
	evs = append(evs[:1], append([]engine.Event{step}, evs[1:]...)...)
	s.update(eventsMsg{id: "s1", evs: evs})
	if refs := s.tv.claims(); len(refs) != 0 {
		t.Errorf("claims at the first stop: %v", refs)
	}
	s.goTo(s.stops() - 1) // the rewrite: turn 1's answer above it
	if refs := s.tv.claims(); len(refs) != 3 || refs[0].Turn != 1 {
		t.Errorf("claims at the rewrite stop: %v, want turn 1's three", refs)
	}
	s.goTo(s.stops())
	for range 5 {
		s.update(keyMsg("["))
	}
	st := ansi.Strip(m.statusView())
	if !strings.Contains(st, "turn 1 · claim 2/3") {
		t.Errorf("status line does not name the claim: %q", st)
	}
	if !strings.Contains(ansi.Strip(s.view()), "▸ Its library holds") {
		t.Errorf("the stepper does not mark turn 1's claim:\n%s", ansi.Strip(s.view()))
	}
	s.goTo(1)
	if s.tv.claimStatus() != "" {
		t.Errorf("a claim stays current where its answer is not shown: %q", s.tv.claimStatus())
	}
}
