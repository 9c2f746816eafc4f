package export

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/store"
)

// The privacy a session ran under (engine.Privacy): what it could send off
// the machine — its web policy and its never-leave corpora — turn by turn,
// as the session event (first turn) and each follow-up's rewrite event
// recorded it. Every export states it: a reader of a page handed on must
// know whether the web saw the question and which corpora never left.

// turnPrivacy is the privacy of one turn (from 1).
type turnPrivacy struct {
	Turn int `json:"turn"`
	engine.Privacy
}

// privacyOf is the privacy of each turn of rec that recorded one. A
// session stored before the privacy was recorded falls back on its
// settings (web policy, never-leave corpora); none when neither is there.
func privacyOf(rec *store.Record) []turnPrivacy {
	var out []turnPrivacy
	for _, ev := range rec.Events {
		switch p := ev.Payload.(type) {
		case engine.SessionStart:
			switch {
			case p.Privacy != nil:
				out = append(out, turnPrivacy{Turn: 1, Privacy: *p.Privacy})
			case p.Config != nil && p.Config.Web != "":
				out = append(out, turnPrivacy{Turn: 1, Privacy: engine.Privacy{Web: p.Config.Web, NeverLeave: slices.Clone(p.Config.NeverLeave)}})
			}
		case engine.Rewrite:
			if p.Privacy != nil {
				out = append(out, turnPrivacy{Turn: engine.TurnOf(ev), Privacy: *p.Privacy})
			}
		}
	}
	return out
}

// privacyText says the privacy in one line: the same words as the
// workspace ("web never · never-leave notes"), turn by turn when the turns
// of a thread differ; "" when unknown.
func privacyText(ps []turnPrivacy) string {
	if len(ps) == 0 {
		return ""
	}
	first := ps[0].Describe()
	same := true
	for _, p := range ps[1:] {
		same = same && p.Describe() == first
	}
	if same {
		return first
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("turn %d: %s", p.Turn, p.Describe())
	}
	return strings.Join(parts, "; ")
}
