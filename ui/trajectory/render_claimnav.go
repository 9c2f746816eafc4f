package trajectory

import (
	"fmt"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// The claims of every answer of a thread: each turn's final answer has its
// own evidence, and the workspace steps through the claims of every answer
// it shows, in reading order. A claim is named by its turn and its number
// in that turn's answer.

// ClaimRef names claim N (1-based) of the answer of turn Turn (1-based);
// the zero value names none.
type ClaimRef struct{ Turn, N int }

// None reports whether c names no claim.
func (c ClaimRef) None() bool { return c.Turn < 1 || c.N < 1 }

// turnAnswer is turn n's final payload and evidence (nil while it runs,
// when it failed, or without evidence).
func turnAnswer(t *Trajectory, n int) (*engine.Final, *engine.Evidence) {
	if t == nil || n < 1 {
		return nil, nil
	}
	if n == t.CurrentTurn() {
		return t.Final, t.Evidence
	}
	if n <= len(t.Turns) {
		tu := t.Turns[n-1]
		return tu.Final, tu.Evidence
	}
	return nil, nil
}

// TurnClaims is the claims of turn n's answer: none while it runs or
// without evidence.
func TurnClaims(t *Trajectory, n int) []Claim {
	f, ev := turnAnswer(t, n)
	if f == nil || ev == nil {
		return nil
	}
	return ev.Claims
}

// claimOf is the claim c names, false when there is none.
func claimOf(t *Trajectory, c ClaimRef) (Claim, bool) {
	claims := TurnClaims(t, c.Turn)
	if c.None() || c.N > len(claims) {
		return Claim{}, false
	}
	return claims[c.N-1], true
}

// answerTurn is the turn whose final answer block b shows: a follow-up's
// rewrite block opens with the answer of the turn before it (turnStart).
// It is 0 for any other block.
func answerTurn(t *Trajectory, b *Block) int {
	if b.Kind != KindNote || b.Note == nil {
		return 0
	}
	if _, ok := b.Note.Payload.(engine.Rewrite); !ok {
		return 0
	}
	k := max(b.Turn, 2) - 1
	if k-1 < len(t.Turns) && t.Turns[k-1].Final != nil {
		return k
	}
	return 0
}

// ShownClaims is the claims of every answer v shows of t, in reading
// order: the earlier turns' answers (above their follow-ups) and the
// current turn's final answer.
func ShownClaims(t *Trajectory, v View) []ClaimRef {
	if t == nil {
		return nil
	}
	var out []ClaimRef
	add := func(turn int) {
		for i := range TurnClaims(t, turn) {
			out = append(out, ClaimRef{Turn: turn, N: i + 1})
		}
	}
	n := len(t.Blocks)
	if v.Upto >= 0 && v.Upto < n {
		n = v.Upto
	}
	for i := 0; i < n; i++ {
		if k := answerTurn(t, t.Blocks[i]); k > 0 {
			add(k)
		}
	}
	if v.ShowFinal && t.Final != nil {
		add(t.CurrentTurn())
	}
	return out
}

// ClaimTitle names claim c for a heading: "Claim 2 of 3", with its turn in
// a thread ("Turn 1 · claim 2 of 3").
func ClaimTitle(t *Trajectory, c ClaimRef) string {
	n := len(TurnClaims(t, c.Turn))
	if len(t.Turns) > 1 {
		return fmt.Sprintf("Turn %d · claim %d of %d", c.Turn, c.N, n)
	}
	return fmt.Sprintf("Claim %d of %d", c.N, n)
}

// ClaimStatus is claim c for the status line: "claim 2/3", with its turn in
// a thread ("turn 1 · claim 2/3"); "" for none.
func ClaimStatus(t *Trajectory, c ClaimRef) string {
	if _, ok := claimOf(t, c); !ok {
		return ""
	}
	n := len(TurnClaims(t, c.Turn))
	if len(t.Turns) > 1 {
		return fmt.Sprintf("turn %d · claim %d/%d", c.Turn, c.N, n)
	}
	return fmt.Sprintf("claim %d/%d", c.N, n)
}

// claimMark is the span of claim sel (1-based) of ev in the answer as
// rendered (text: the final's answer cleaned for the terminal), with the
// marker and style of its verdict; none when the claim is not found there.
func claimMark(text string, ev *engine.Evidence, sel int) mdMark {
	if ev == nil || sel < 1 || sel > len(ev.Claims) {
		return mdMark{}
	}
	c := ev.Claims[sel-1]
	sp, ok := answerSpan(text, ev.Claims, sel)
	if !ok {
		return mdMark{}
	}
	m := mdMark{Start: sp.Start, End: sp.End, Marker: "▸ "}
	if c.Verdict == evidence.Unsupported || c.Verdict == evidence.Uncited {
		m.Warn, m.Marker = true, "⚠ "
	}
	return m
}

// answerSpan finds claim sel (1-based) of claims in text. The claim's span
// (offsets into the answer the engine split) is used when text still holds
// that claim there; otherwise (the answer was cleaned for the terminal and
// bytes moved) text is split again as the engine splits it and the claim is
// found by its place and its words.
func answerSpan(text string, claims []Claim, sel int) (evidence.Span, bool) {
	c := claims[sel-1]
	want := termtext.Line(c.Text)
	same := func(s evidence.Claim) bool { return termtext.Line(s.Text) == want }
	sp := c.Span
	if sp.Start >= 0 && sp.Start < sp.End && sp.End <= len(text) && boundary(text, sp.Start) && boundary(text, sp.End) {
		if got := evidence.SplitClaims(text[sp.Start:sp.End]); len(got) == 1 && same(got[0]) {
			return sp, true
		}
	}
	again := evidence.SplitClaims(text)
	if len(again) == len(claims) && same(again[sel-1]) {
		return again[sel-1].Span, true
	}
	// The k-th claim with these words is the k-th such sentence.
	k := 0
	for _, o := range claims[:sel-1] {
		if termtext.Line(o.Text) == want {
			k++
		}
	}
	for _, s := range again {
		if same(s) {
			if k == 0 {
				return s.Span, true
			}
			k--
		}
	}
	return evidence.Span{}, false
}
