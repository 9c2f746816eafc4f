package engine

import (
	"slices"
	"strings"
)

// Privacy is what a run may send off the machine: its web policy and its
// never-leave corpora. A thread keeps the strictest privacy any of its
// turns had (DESIGN.md, trust rules): a follow-up may tighten it, and
// loosens it only with a setting given explicitly on that turn, for that
// turn. The session event (first turn) and the rewrite event (each
// follow-up) record the privacy that applied.
type Privacy struct {
	// Web is the web policy in force (auto, ask or never).
	Web string `json:"web"`
	// NeverLeave are the never-leave corpora in force.
	NeverLeave []string `json:"never_leave,omitempty"`
	// Kept names the settings ("web", "never_leave") a follow-up took
	// from earlier turns of its thread because they were stricter than
	// its own.
	Kept []string `json:"kept,omitempty"`
	// Loosened names the settings a follow-up loosened explicitly (given
	// on that turn) below what earlier turns had.
	Loosened []string `json:"loosened,omitempty"`
}

// Privacy setting keys (Privacy.Kept, Privacy.Loosened, Request.Explicit).
const (
	PrivacyWeb        = "web"
	PrivacyNeverLeave = "never_leave"
)

// webStrictness orders the web policies: never is the strictest.
func webStrictness(p string) int {
	switch p {
	case WebNever:
		return 2
	case WebAsk:
		return 1
	}
	return 0
}

// StricterWeb is the stricter of two web policies ("" counts as none).
func StricterWeb(a, b string) string {
	if a == "" {
		return b
	}
	if b != "" && webStrictness(b) > webStrictness(a) {
		return b
	}
	return a
}

// unionNames adds the names of b missing from a, keeping a's order.
func unionNames(a, b []string) []string {
	out := slices.Clone(a)
	for _, n := range b {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// tighten makes p at least as strict as q.
func (p *Privacy) tighten(q Privacy) {
	p.Web = StricterWeb(p.Web, q.Web)
	p.NeverLeave = unionNames(p.NeverLeave, q.NeverLeave)
}

// settingsPrivacy is the privacy settings s ask for.
func settingsPrivacy(s Settings) Privacy {
	return Privacy{Web: s.Web, NeverLeave: unionNames(nil, s.NeverLeave)}
}

// applyThreadPrivacy sets a follow-up's web policy and never-leave
// corpora: the thread's (the strictest of its earlier turns) where they
// are stricter than s, unless the setting was given explicitly on this
// turn (explicit holds PrivacyWeb, PrivacyNeverLeave), in which case this
// turn's value applies even when it is looser. It returns the privacy
// that applies, saying what was kept and what was loosened.
func applyThreadPrivacy(s *Settings, th *Thread, explicit []string) Privacy {
	own := settingsPrivacy(*s)
	p := own
	if th == nil || th.Privacy == nil {
		return p
	}
	prior := *th.Privacy
	if slices.Contains(explicit, PrivacyWeb) {
		if webStrictness(own.Web) < webStrictness(prior.Web) {
			p.Loosened = append(p.Loosened, PrivacyWeb)
		}
	} else if w := StricterWeb(own.Web, prior.Web); w != own.Web {
		p.Web = w
		p.Kept = append(p.Kept, PrivacyWeb)
	}
	if slices.Contains(explicit, PrivacyNeverLeave) {
		for _, n := range prior.NeverLeave {
			if !slices.Contains(own.NeverLeave, n) {
				p.Loosened = append(p.Loosened, PrivacyNeverLeave)
				break
			}
		}
	} else if u := unionNames(own.NeverLeave, prior.NeverLeave); len(u) > len(own.NeverLeave) {
		p.NeverLeave = u
		p.Kept = append(p.Kept, PrivacyNeverLeave)
	}
	s.Web, s.NeverLeave = p.Web, slices.Clone(p.NeverLeave)
	return p
}

// Describe is the privacy in one line for a header: "web never ·
// never-leave notes (kept from the thread)".
func (p Privacy) Describe() string {
	var b strings.Builder
	b.WriteString("web " + p.Web)
	if len(p.NeverLeave) > 0 {
		b.WriteString(" · never-leave " + strings.Join(p.NeverLeave, ", "))
	}
	var why []string
	if len(p.Kept) > 0 {
		why = append(why, "kept from earlier turns: "+strings.Join(privacyWords(p.Kept), ", "))
	}
	if len(p.Loosened) > 0 {
		why = append(why, "loosened on this turn: "+strings.Join(privacyWords(p.Loosened), ", "))
	}
	if len(why) > 0 {
		b.WriteString(" (" + strings.Join(why, "; ") + ")")
	}
	return b.String()
}

func privacyWords(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.ReplaceAll(k, "_", "-")
	}
	return out
}
