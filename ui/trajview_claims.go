package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/ui/trajectory"
)

// The answers' claims in the trajectory view: ] and [ step through the
// claims of every answer shown (each turn of a thread has its own), in
// reading order; the current one is marked in its answer and shown under
// it with its verdict, and e opens its cited passages over the trajectory
// with the supporting quotes highlighted. The ask screen and the stepper
// share it.

// moveClaim moves the current claim by dir across the answers shown. The
// first move picks the first (or the last) claim of the answer in view:
// the latest one that starts above the bottom of the view. Without claims
// it does nothing.
func (v *trajView) moveClaim(dir int) {
	refs := v.claims()
	if len(refs) == 0 {
		return
	}
	i := slices.Index(refs, v.claim)
	if i < 0 {
		turn := v.turnInView(refs)
		for j, r := range refs {
			if r.Turn != turn {
				continue
			}
			if i < 0 || dir < 0 {
				i = j // the turn's first, or (going back) its last
			}
		}
	} else {
		i = min(max(i+dir, 0), len(refs)-1)
	}
	v.claim = refs[i]
	v.refresh()
	v.showClaim()
	if v.reading {
		v.renderPassage(true)
	}
}

// turnInView is the turn whose answer the user is looking at: the latest
// answer that starts above the bottom of the view (the first otherwise).
func (v *trajView) turnInView(refs []trajectory.ClaimRef) int {
	bottom := v.pager.Offset() + v.pager.Height()
	turn := refs[0].Turn
	for _, r := range refs {
		if l, ok := v.out.AnswerLine[r.Turn]; ok && l < bottom {
			turn = r.Turn
		}
	}
	return turn
}

// showClaim scrolls to the current claim: its panel under the answer, and
// its sentence in the answer with the answer's heading (which names the
// turn) when both fit; the sentence comes first.
func (v *trajView) showClaim() {
	if v.out.ClaimLine >= 0 {
		v.pager.ShowLine(v.out.ClaimLine, 3)
	}
	mark := v.out.MarkLine
	if mark < 0 {
		return
	}
	top := max(mark-1, 0)
	if a, ok := v.out.AnswerLine[v.claim.Turn]; ok && a+1 <= mark && mark-(a+1) < v.pager.Height()-1 {
		top = a + 1
	}
	v.pager.ShowLine(top, mark-top)
}

// claims is the claims of the answers shown, in reading order (none before
// the stepper reaches an answer).
func (v *trajView) claims() []trajectory.ClaimRef {
	if v.traj == nil {
		return nil
	}
	return trajectory.ShownClaims(v.traj, v.viewState())
}

// claimStatus says which claim is current ("turn 1 · claim 2/3"), "" for
// none.
func (v *trajView) claimStatus() string {
	if v.traj == nil || v.claim.None() {
		return ""
	}
	return trajectory.ClaimStatus(v.traj, v.claim)
}

// openPassage opens the current claim's cited passages (the first claim's
// when none is current yet).
func (v *trajView) openPassage() {
	if len(v.claims()) == 0 {
		return
	}
	if v.claim.None() {
		v.moveClaim(1)
	}
	v.reading = true
	v.renderPassage(true)
}

// renderPassage renders the open passage; top shows its first quote.
func (v *trajView) renderPassage(top bool) {
	if !v.reading || v.traj == nil {
		return
	}
	p := v.renderer.Passage(v.traj, v.claim, v.width)
	v.passage.SetLines(p.Lines)
	if top {
		v.passage.SetFollow(false)
		v.passage.Top()
		if p.QuoteLine >= 0 {
			v.passage.ShowLine(p.QuoteLine, 2)
		}
	}
}

func (v *trajView) updatePassage(msg tea.KeyPressMsg) {
	switch {
	case key.Matches(msg, v.pkeys.Close):
		v.reading = false
	case key.Matches(msg, v.pkeys.Down):
		v.passage.ScrollBy(1)
	case key.Matches(msg, v.pkeys.Up):
		v.passage.ScrollBy(-1)
	case key.Matches(msg, v.pkeys.PageDown):
		v.passage.PageDown()
	case key.Matches(msg, v.pkeys.PageUp):
		v.passage.PageUp()
	case key.Matches(msg, v.pkeys.NextClaim):
		v.moveClaim(1)
	case key.Matches(msg, v.pkeys.PrevClaim):
		v.moveClaim(-1)
	}
}

// modal reports whether the passage is open: its keys come first.
func (v *trajView) modal() bool { return v.reading }
