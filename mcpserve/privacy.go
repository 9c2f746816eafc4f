package mcpserve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources/catalog"
)

// An agent calling prefrag over MCP can make the user's privacy stricter,
// never looser (DESIGN.md, trust rules): its web argument applies only
// when stricter than the user's policy, its never-leave corpora are added
// to the user's, and nothing of an earlier turn's privacy is loosened in
// a follow-up (an ask passes no explicit setting to the engine).

// askPrivacy is the privacy an ask runs with and how it came about.
type askPrivacy struct {
	Web        string   // the policy in force
	UserWeb    string   // the user's own
	Requested  string   // the tool argument, "" when none
	Refused    bool     // the argument asked for a looser policy
	NeverLeave []string // the user's plus the argument's
	Notes      []string // how the argument's names were read
}

// applyPrivacy sets s's web policy and never-leave corpora from the user's
// (already in s) and the tool's arguments, tightening only.
func (s *Server) applyPrivacy(rc *engine.RunConfig, web string, neverLeave []string) (askPrivacy, error) {
	p := askPrivacy{UserWeb: rc.Web, Requested: strings.TrimSpace(web)}
	switch p.Requested {
	case "", engine.WebAuto, engine.WebAsk, engine.WebNever:
	default:
		return p, fmt.Errorf("web must be %s, %s or %s, not %q", engine.WebAuto, engine.WebAsk, engine.WebNever, web)
	}
	p.Web = engine.StricterWeb(rc.Web, p.Requested)
	p.Refused = p.Requested != "" && p.Web != p.Requested
	extra, notes, err := s.app.ResolveNeverLeave(neverLeave, "the never_leave argument")
	if err != nil {
		return p, err
	}
	p.Notes = notes
	p.NeverLeave = slices.Clone(rc.NeverLeave)
	for _, n := range extra {
		if !slices.Contains(p.NeverLeave, n) {
			p.NeverLeave = append(p.NeverLeave, n)
		}
	}
	rc.Web, rc.NeverLeave = p.Web, p.NeverLeave
	return p, nil
}

// knownCorpus resolves a corpus name a tool argument gives as the user's
// corpus it names (catalog.Resolve: "notes", " notes", "local:notes"); a
// name that names none is an error with the nearest name.
func (s *Server) knownCorpus(name string) (string, error) {
	r, err := catalog.Resolve(s.app.Cfg.CorporaDir(), name)
	if err != nil {
		return "", err
	}
	return r.Name, nil
}

// webNote says, when the policy in force keeps the web out, why and how
// the user (not the agent) can allow it; "" when the web may be used.
func (s *Server) webNote(p askPrivacy) string {
	var parts []string
	if p.Refused {
		parts = append(parts, fmt.Sprintf("the user's web policy is %s; a tool argument can only make it stricter, so %q was not applied", p.UserWeb, p.Requested))
	}
	switch {
	case p.Web == engine.WebAsk && p.UserWeb == engine.WebAsk:
		parts = append(parts, "nobody can be asked over MCP, so no web query is sent (as with a headless prefrag ask); to let agents' questions search the web, the user can "+s.opts.WebAllowHint+" and restart prefrag mcp")
	case p.Web == engine.WebAsk:
		parts = append(parts, "web policy ask (this call's argument): nobody can be asked over MCP, so no web query is sent")
	}
	return strings.Join(parts, "; ")
}
