package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

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
	sig := fmt.Sprintf("%d|%s|%s|%s|%v|%d|%p", m.width, sh.settings.Model, sh.preferred(), sh.webPolicy(), sh.webNeedsOptIn(), sh.settings.MaxSteps, sh.st)
	if r, ok := m.statusRun(); ok {
		sig += fmt.Sprintf("|%p|%d|%v|%s|%.1f|%d|%d|%d|%d", r.traj, r.step, r.running, clockText(r.elapsed), r.tps, r.local, r.web, r.used, len(r.traj.Blocks))
	}
	return sig
}

func (m *Model) renderStatus() string {
	sh, st := m.sh, m.sh.st
	kv := func(k, v string) string { return st.StatusKey.Render(k+" ") + st.StatusValue.Render(v) }
	var segs []statusSegment
	model := sh.settings.Model
	r, shown := m.statusRun()
	if shown && r.traj.Config != nil && r.traj.Config.Model != "" && !r.running {
		model = r.traj.Config.Model // the model the session on screen used
	}
	if model == "" {
		model = "—"
	}
	segs = append(segs, statusSegment{kv("model", oneLine(model)), 4})
	pref := sh.preferred()
	if pref == "" {
		pref = "none"
	}
	segs = append(segs, statusSegment{kv("pref", oneLine(pref)), 3})
	web := sh.webPolicy()
	webText := kv("web", web)
	if web != "auto" {
		webText = st.StatusKey.Render("web ") + st.StatusAlert.Render(web)
	}
	if sh.webNeedsOptIn() {
		// No corpus to search first: nothing leaves without --web-only.
		webText = st.StatusKey.Render("web ") + st.StatusAlert.Render("off: no corpus")
	}
	segs = append(segs, statusSegment{webText, 1})
	if shown {
		elapsed, tps, local, webN, used := r.elapsed, r.tps, r.local, r.web, r.used
		maxSteps := sh.settings.MaxSteps
		if r.traj.Config != nil {
			maxSteps = r.traj.Config.MaxSteps
		}
		stepText := stepsText(r.step, maxSteps, r.traj.Final != nil && r.traj.Final.Forced && !r.running)
		if r.running {
			segs = append(segs, statusSegment{kv("step", stepText), 2})
		} else {
			segs = append(segs, statusSegment{kv("steps", stepText), 6})
		}
		segs = append(segs, statusSegment{st.StatusValue.Render(clockText(elapsed)), 5})
		if tps > 0 {
			segs = append(segs, statusSegment{st.StatusValue.Render(fmt.Sprintf("%.1f", tps)) + st.StatusKey.Render(" tok/s"), 7})
		}
		segs = append(segs, statusSegment{kv("searches", fmt.Sprintf("%d local · %d web · %d used", local, webN, used)), 8})
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

// statusRunView is the run the status line describes.
type statusRunView struct {
	traj              *trajectory.Trajectory
	running           bool
	step, reflections int
	elapsed           time.Duration
	tps               float64
	local, web, used  int
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
		r.traj = s.traj
		r.step = s.traj.CurrentStep()
		r.local, r.web, r.used = s.traj.RetrievalCounts()
		if f := s.traj.Final; f != nil && f.Counts != nil {
			c := f.Counts
			r.local, r.web, r.used = c.LocalRetrievals, c.WebRetrievals, c.UsedRetrievals
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
		r.traj, r.running = a.traj, a.running
		r.step, r.elapsed, r.tps, r.local, r.web, r.used = a.runState()
	default:
		return r, false
	}
	// A reflection turn consumes no step (DESIGN.md, step 5): the steps
	// after a reflection keep the count where it was.
	for _, b := range r.traj.Blocks {
		if b.Kind == trajectory.KindSupplement && b.Step < r.step {
			r.reflections++
		}
	}
	r.step -= r.reflections
	return r, true
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
