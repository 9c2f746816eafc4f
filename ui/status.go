package ui

import (
	"fmt"
	"strings"

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
	if a := m.ask; a.traj != nil {
		step, elapsed, tps, local, web, used := a.runState()
		sig += fmt.Sprintf("|%d|%v|%s|%.1f|%d|%d|%d|%d", step, a.running, clockText(elapsed), tps, local, web, used, len(a.traj.Blocks))
	}
	return sig
}

func (m *Model) renderStatus() string {
	sh, st := m.sh, m.sh.st
	kv := func(k, v string) string { return st.StatusKey.Render(k+" ") + st.StatusValue.Render(v) }
	var segs []statusSegment
	model := sh.settings.Model
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
	a := m.ask
	if a.traj != nil {
		step, elapsed, tps, local, webN, used := a.runState()
		maxSteps := sh.settings.MaxSteps
		if a.traj.Config != nil {
			maxSteps = a.traj.Config.MaxSteps
		}
		// A reflection supplement grants a turn that consumes no step.
		for _, b := range a.traj.Blocks {
			if b.Kind == trajectory.KindSupplement {
				maxSteps++
			}
		}
		stepText := fmt.Sprintf("%d/%d", step, maxSteps)
		if a.running {
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
