package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/trajectory"
)

const claimsPassage = "The Velloran Institute was founded in 1887 by Ada Marsh. " +
	"Its library holds forty thousand maps. The building was renovated in 1962."

// claimsTrajectory is an answer with three claims: two supported by
// different sentences of [1], one citing [2] that says nothing about it.
func claimsTrajectory() *trajectory.Trajectory {
	tr := trajectory.New()
	for _, ev := range claimsEvents() {
		tr.Apply(ev)
	}
	return tr
}

func claimsEvents() []engine.Event {
	one := strings.Index(claimsPassage, "Its library")
	two := strings.Index(claimsPassage, " The building")
	a := sources.Document{ID: "a", Title: "Velloran Institute", Source: "local:wiki", Text: claimsPassage}
	b := sources.Document{ID: "b", Title: "Carlsberg", Source: "local:wiki", Text: "The laboratory studies yeast."}
	return []engine.Event{
		{Payload: engine.SessionStart{Question: "What about the Velloran Institute?"}},
		{Payload: engine.Evidence{Claims: []evidence.Result{
			{Text: "It was founded in 1887 by Ada Marsh.", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: claimsPassage[:56], Start: 0, End: 56, Score: 0.9}},
				Cited:   []evidence.Citation{{N: 1, Verdict: evidence.Supported, Score: 0.9}}},
			{Text: "Its library holds forty thousand maps.", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: claimsPassage[one:two], Start: one, End: two, Score: 0.95}},
				Cited:   []evidence.Citation{{N: 1, Verdict: evidence.Supported, Score: 0.95}}},
			{Text: "Its director won the Nobel Prize.", Citations: []int{2}, Verdict: evidence.Unsupported,
				Cited: []evidence.Citation{{N: 2, Verdict: evidence.Unsupported}}},
		}}},
		{Payload: engine.Final{Answer: "It was founded in 1887 by Ada Marsh [1]. Its library holds forty thousand maps [1]. Its director won the Nobel Prize [2].",
			Citations: []int{1, 2}, Sources: []sources.Document{a, b}, SourceNums: []int{1, 2}}},
	}
}

func press(v *trajView, keys ...string) {
	for _, k := range keys {
		v.update(keyMsg(k))
	}
}

// TestTrajViewClaims: ] steps to a claim (shown under the answer with its
// verdict), e opens its cited passage with the supporting sentence
// highlighted (reverse video without colours) and not the others; the
// unsupported claim says so; esc closes.
func TestTrajViewClaims(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{NoColor: true})
	v := newTrajView(sh)
	v.setSize(100, 40)
	v.set(claimsTrajectory(), false)
	if strings.Contains(ansi.Strip(v.view()), "Claim 1 of 3") {
		t.Fatal("a claim is current before any key")
	}
	press(v, "]", "]")
	plain := ansi.Strip(v.view())
	if !strings.Contains(plain, "▶ Claim 2 of 3 · ✓ supported · cites [1]") {
		t.Errorf("current claim not shown:\n%s", plain)
	}
	t.Run("claim", func(t *testing.T) { golden.RequireEqual(t, plain) })

	press(v, "e")
	if !v.modal() {
		t.Fatal("e did not open the passage")
	}
	raw := v.view()
	if want := sh.st.QuoteMark.Render("Its library holds forty thousand maps."); !strings.Contains(raw, want) {
		t.Errorf("quote not highlighted (want %q):\n%q", want, raw)
	}
	if strings.Contains(raw, sh.st.QuoteMark.Render("The building")) || strings.Contains(raw, sh.st.QuoteMark.Render("The Velloran")) {
		t.Errorf("a sentence of another claim is highlighted:\n%q", raw)
	}
	t.Run("passage", func(t *testing.T) { golden.RequireEqual(t, ansi.Strip(raw)) })

	press(v, "]")
	plain = ansi.Strip(v.view())
	if !strings.Contains(plain, "⚠ no support found in the cited source") || !strings.Contains(plain, "[2] Carlsberg") {
		t.Errorf("unsupported claim not marked in its passage:\n%s", plain)
	}
	if strings.Contains(v.view(), "\x1b[1;7m") || strings.Contains(v.view(), "\x1b[7;1m") {
		t.Errorf("something highlighted for a claim without support:\n%q", v.view())
	}
	press(v, "esc")
	if v.modal() || !strings.Contains(ansi.Strip(v.view()), "▶ Claim 3 of 3") {
		t.Errorf("esc did not close the passage on claim 3:\n%s", ansi.Strip(v.view()))
	}
}

// TestTrajViewClaimsNeedAnAnswer: before the final answer (a stepper stop
// or a running question) the claim keys do nothing and open nothing.
func TestTrajViewClaimsNeedAnAnswer(t *testing.T) {
	v := newTrajView(newShared(context.Background(), Deps{}, Options{NoColor: true}))
	v.setSize(70, 30)
	v.set(claimsTrajectory(), false)
	v.upto = 0
	v.refresh()
	press(v, "]", "e")
	if v.modal() || strings.Contains(ansi.Strip(v.view()), "Claim 1 of 3") {
		t.Errorf("claims before the answer is shown:\n%s", ansi.Strip(v.view()))
	}
}

// TestStepperClaims: the stepper shows a stored session's claims the same
// way once it reaches the final answer, and while the passage is open its
// keys come first (q closes it instead of leaving the stepper).
func TestStepperClaims(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{NoColor: true})
	s := newStepperScreen(sh)
	s.id = "s1"
	s.setSize(100, 40)
	s.update(eventsMsg{id: "s1", evs: claimsEvents()})
	s.update(keyMsg("end"))
	s.update(keyMsg("]"))
	if !strings.Contains(ansi.Strip(s.view()), "▶ Claim 1 of 3 · ✓ supported") {
		t.Fatalf("no current claim in the stepper:\n%s", ansi.Strip(s.view()))
	}
	s.update(keyMsg("e"))
	if want := sh.st.QuoteMark.Render("The Velloran Institute was founded in 1887 by Ada Marsh."); !strings.Contains(s.view(), want) {
		t.Errorf("quote not highlighted in the stepper:\n%q", s.view())
	}
	s.update(keyMsg("q"))
	if s.goBack || s.tv.modal() {
		t.Errorf("q: goBack=%v, passage open=%v; want the passage closed and the stepper kept", s.goBack, s.tv.modal())
	}
}
