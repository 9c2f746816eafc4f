package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/ui/trajectory"
)

// The answer's claims in the trajectory view: ] and [ step through them
// (the current one is shown under the answer with its verdict), e opens
// its cited passages over the trajectory with the supporting quotes
// highlighted. The ask screen and the stepper share it.

// moveClaim moves the current claim by dir; the first move picks the
// first (or the last) claim. Without claims it does nothing.
func (v *trajView) moveClaim(dir int) {
	n := len(v.claims())
	if n == 0 {
		return
	}
	switch {
	case v.claim == 0 && dir > 0:
		v.claim = 1
	case v.claim == 0:
		v.claim = n
	default:
		v.claim = min(max(v.claim+dir, 1), n)
	}
	v.refresh()
	if v.out.ClaimLine >= 0 {
		v.pager.ShowLine(v.out.ClaimLine, 3)
	}
	if v.reading {
		v.renderPassage(true)
	}
}

// claims is the claims of the answer shown (none before the stepper
// reaches the final answer).
func (v *trajView) claims() []trajectory.Claim {
	if v.traj == nil || v.upto >= 0 {
		return nil
	}
	return trajectory.Claims(v.traj)
}

// openPassage opens the current claim's cited passages (the first claim's
// when none is current yet).
func (v *trajView) openPassage() {
	if len(v.claims()) == 0 {
		return
	}
	if v.claim == 0 {
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
