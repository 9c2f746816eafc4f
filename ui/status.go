package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/ui/trajectory"
)

// statusSegment is one part of the status line; lower keep values survive
// longer when the terminal is narrow.
type statusSegment struct {
	text string
	keep int
}

// statusView is the line above the key help: model, preferred corpus, web
// policy (always), step n of max, elapsed time, tokens per second and the
// retrieval counts.
func (m *Model) statusView() string {
	sig := m.statusSig()
	if m.statusCache.sig == sig {
		return m.statusCache.out
	}
	out := m.renderStatus()
	m.statusCache.sig, m.statusCache.out = sig, out
	return out
}

// statusSig is every value the status line shows, as text: the line is
// rebuilt only when one of them changes (a View happens after every
// message, tokens included).
func (m *Model) statusSig() string {
	sh := m.sh
	sig := fmt.Sprintf("%d|%s|%s|%s|%v|%d|%p|%s", m.width, sh.settings.Model, sh.preferred(), sh.webPolicy(), sh.webNeedsOptIn(), sh.settings.MaxSteps, sh.st, sh.flash)
	if r, ok := m.statusRun(); ok {
		sig += "|" + effectiveWeb(r, ok, sh.webPolicy())
		sig += fmt.Sprintf("|%p|%d|%v|%s|%.1f|%d|%d|%d|%d|%d|%s|%d/%d|%s", r.traj, r.step, r.running, clockText(r.elapsed), r.tps, r.local, r.mcp, r.web, r.used, len(r.traj.Blocks), r.failed, r.turn, r.turns, r.claim)
	}
	return sig
}

// renderStatus draws the status line: the segments that fit the width,
// those with the highest keep dropped first.
func (m *Model) renderStatus() string {
	st := m.sh.st
	r, shown := m.statusRun()
	segs := m.settingSegments(r, shown)
	if m.sh.flash != "" {
		// A one-off message (an export written): it outlasts every
		// figure but the web policy.
		segs = append(segs, statusSegment{st.OK.Render(truncateTo(m.sh.flash, max(m.width-24, 24))), 0})
	}
	if shown {
		segs = append(segs, m.runSegments(r)...)
	}
	sep := st.Status.Render(" │ ")
	for {
		parts := make([]string, len(segs))
		for i, s := range segs {
			parts[i] = s.text
		}
		line := " " + strings.Join(parts, sep)
		if ansi.StringWidth(line) <= m.width || len(segs) == 1 {
			return truncateTo(line, m.width)
		}
		drop := 0
		for i, s := range segs {
			if s.keep > segs[drop].keep {
				drop = i
			}
		}
		segs = append(segs[:drop], segs[drop+1:]...)
	}
}

// statusKV is a status line figure: its name, then its value.
func (m *Model) statusKV(k, v string) string {
	st := m.sh.st
	return st.StatusKey.Render(k+" ") + st.StatusValue.Render(v)
}

// settingSegments are the status line's model, preferred source and web
// policy: those of the run on screen (r, when shown) where they differ
// from the app's.
func (m *Model) settingSegments(r statusRunView, shown bool) []statusSegment {
	sh, st := m.sh, m.sh.st
	model := sh.settings.Model
	if shown && r.traj.Config != nil && r.traj.Config.Model != "" && !r.running {
		model = r.traj.Config.Model // the model the session on screen used
	}
	if model == "" {
		model = "—"
	}
	pref := sh.preferred()
	if pref == "" {
		pref = "none"
	}
	web := sh.webPolicy()
	webText := m.statusKV("web", web)
	if web != "auto" {
		webText = st.StatusKey.Render("web ") + st.StatusAlert.Render(web)
	}
	if eff := effectiveWeb(r, shown, web); eff != web {
		// A thread turn running under its thread's stricter policy: the
		// policy that holds for it, not the app's.
		webText = st.StatusKey.Render("web ") + st.StatusAlert.Render(eff+" (thread)")
	}
	if sh.webNeedsOptIn() {
		// No corpus to search first: nothing leaves without --web-only.
		webText = st.StatusKey.Render("web ") + st.StatusAlert.Render("off: no corpus")
	}
	return []statusSegment{
		{m.statusKV("model", oneLine(model)), 4},
		{m.statusKV("pref", oneLine(pref)), 3},
		{webText, 1},
	}
}

// runSegments are the status line's figures of the run on screen: why it
// failed, the claim the keys act on, and, once it ran, its turn, steps,
// time, speed and searches.
func (m *Model) runSegments(r statusRunView) []statusSegment {
	st := m.sh.st
	var segs []statusSegment
	if r.failed != "" {
		// Why the run failed; a run that never started has no counts.
		segs = append(segs, statusSegment{st.Error.Render(truncateTo("✗ "+oneLine(r.failed), max(m.width/2, 24))), 0})
	}
	if r.claim != "" {
		// The claim the keys ] [ e act on, and whose answer it is in.
		segs = append(segs, statusSegment{st.StatusValue.Render(r.claim), 1})
	}
	if r.notRun {
		return segs
	}
	maxSteps := m.sh.settings.MaxSteps
	if r.traj.Config != nil {
		maxSteps = r.traj.Config.MaxSteps
	}
	final := turnFinal(r.traj, r.turn)
	stepText := stepsText(r.step, maxSteps, final != nil && final.Forced && !r.running)
	if r.turns > 1 {
		// In a thread every figure after this is the turn's own,
		// and the status line says which turn that is.
		segs = append(segs, statusSegment{m.statusKV("turn", fmt.Sprintf("%d/%d", r.turn, r.turns)), 2})
	}
	if r.running {
		segs = append(segs, statusSegment{m.statusKV("step", stepText), 2})
	} else {
		segs = append(segs, statusSegment{m.statusKV("steps", stepText), 6})
	}
	segs = append(segs, statusSegment{st.StatusValue.Render(clockText(r.elapsed)), 5})
	if r.tps > 0 {
		segs = append(segs, statusSegment{st.StatusValue.Render(fmt.Sprintf("%.1f", r.tps)) + st.StatusKey.Render(" tok/s"), 7})
	}
	mcp := ""
	if r.mcp > 0 {
		mcp = fmt.Sprintf("%d mcp · ", r.mcp)
	}
	segs = append(segs, statusSegment{m.statusKV("searches", fmt.Sprintf("%d local · %s%d web · %d used", r.local, mcp, r.web, r.used)), 8})
	return segs
}

// effectiveWeb is the web policy that holds for the run on the status
// line while it runs: the app's (web), or the stricter one its turn of a
// thread ran under (the thread keeps its strictest privacy, recorded on
// the turn's rewrite event). The engine asks the app's policy only within
// the turn's own, so the stricter of the two applies.
func effectiveWeb(r statusRunView, shown bool, web string) string {
	if !shown || !r.running || r.traj == nil {
		return web
	}
	for _, b := range r.traj.Blocks {
		if b.Kind != trajectory.KindNote || b.Note == nil || max(b.Turn, 1) != r.turn {
			continue
		}
		if rw, ok := b.Note.Payload.(engine.Rewrite); ok && rw.Privacy != nil {
			return engine.StricterWeb(web, rw.Privacy.Web)
		}
	}
	return web
}

// statusRunView is the run the status line describes: in a thread, one
// turn of it (turn of turns), whose figures alone it shows.
type statusRunView struct {
	traj              *trajectory.Trajectory
	running           bool
	turn, turns       int
	step, reflections int
	elapsed           time.Duration
	tps               float64
	local, web, used  int
	// mcp counts the searches of MCP servers.
	mcp int
	// failed says why the ask screen's run failed; notRun when it never
	// started.
	failed string
	notRun bool
	// claim is the current claim, when there is one ("turn 1 · claim 2/3").
	claim string
}

// statusRun is the session on screen: the stepper's on the stepper, the
// ask screen's run on the ask screen, and on the other screens the ask
// screen's run only while it runs (its progress stays visible).
func (m *Model) statusRun() (statusRunView, bool) {
	var r statusRunView
	switch {
	case m.screen == screenStepper:
		s := m.stepper
		if s.traj == nil {
			return r, false
		}
		// The turn on screen: the stop's block's, or the latest turn's
		// at the final answer.
		r.traj, r.turn = s.traj, s.traj.CurrentTurn()
		if s.pos >= 1 && s.pos <= len(s.traj.Blocks) {
			r.turn = max(s.traj.Blocks[s.pos-1].Turn, 1)
		}
		r.step, r.local, r.web, r.used = turnFigures(s.traj, r.turn)
		r.mcp = s.traj.MCPSearches(r.turn)
		r.claim = s.tv.claimStatus()
		if f := turnFinal(s.traj, r.turn); f != nil && f.Counts != nil {
			c := f.Counts
			r.local, r.web, r.used, r.mcp = c.LocalRetrievals, c.WebRetrievals, c.UsedRetrievals, c.MCPRetrievals
			r.elapsed = time.Duration(c.TotalMillis) * time.Millisecond
			if c.LLMMillis > 0 {
				r.tps = float64(c.OutputTokens) / (float64(c.LLMMillis) / 1000)
			}
		}
	case m.screen == screenAsk || m.ask.running:
		a := m.ask
		if a.traj == nil {
			return r, false
		}
		r.traj, r.running, r.turn = a.traj, a.running, a.traj.CurrentTurn()
		r.step, r.elapsed, r.tps, r.local, r.web, r.used = a.runState()
		r.mcp = a.traj.MCPSearches(a.traj.CurrentTurn())
		if f := a.traj.Final; f != nil && f.Counts != nil {
			r.mcp = f.Counts.MCPRetrievals
		}
		r.failed = a.failed()
		if m.screen == screenAsk {
			r.claim = a.tv.claimStatus()
		}
		r.notRun = strings.HasPrefix(r.failed, "not run")
	default:
		return r, false
	}
	r.turns = max(len(r.traj.Turns), 1)
	// A reflection turn consumes no step (DESIGN.md, step 5): the steps
	// after a reflection keep the count where it was.
	for _, b := range r.traj.Blocks {
		if b.Kind == trajectory.KindSupplement && b.Step < r.step && max(b.Turn, 1) == r.turn {
			r.reflections++
		}
	}
	r.step -= r.reflections
	return r, true
}

// turnFinal is the final payload of turn n of t (nil while it runs, or when
// it failed).
func turnFinal(t *trajectory.Trajectory, n int) *engine.Final {
	if n >= 1 && n <= len(t.Turns) {
		return t.Turns[n-1].Final
	}
	return t.Final
}

// turnFigures are turn n's highest step and its searches (see
// TurnFigures), with the live step of the turn that runs.
func turnFigures(t *trajectory.Trajectory, n int) (step, local, web, used int) {
	step, local, web, used = t.TurnFigures(n)
	if n == t.CurrentTurn() {
		step = max(step, t.CurrentStep())
	}
	return step, local, web, used
}

// stepsText is the step counter: never more than the soft limit (the hard
// limit allows one step more, and a forced answer is one more call); past
// it, "forced" when the answer was forced there, else "+".
func stepsText(step, maxSteps int, forced bool) string {
	if maxSteps <= 0 || step <= maxSteps {
		return fmt.Sprintf("%d/%d", step, maxSteps)
	}
	text := fmt.Sprintf("%d/%d", min(step, maxSteps), maxSteps)
	if forced {
		return text + " forced"
	}
	return text + "+"
}
