package mcpserve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/suggest"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
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
	extra := make([]string, 0, len(neverLeave))
	for _, n := range neverLeave {
		name, err := s.knownCorpus(n)
		if err != nil {
			return p, fmt.Errorf("never_leave: %w", err)
		}
		extra = append(extra, name)
	}
	p.NeverLeave = slices.Clone(rc.NeverLeave)
	for _, n := range extra {
		if !slices.Contains(p.NeverLeave, n) {
			p.NeverLeave = append(p.NeverLeave, n)
		}
	}
	rc.Web, rc.NeverLeave = p.Web, p.NeverLeave
	return p, nil
}

// knownCorpus resolves a corpus name a tool argument gives ("notes", or
// the source name "local:notes") against the user's corpora, local and
// remote; a name that names none is an error with the nearest name.
//
// It stands in for the never-leave resolver of issue 26 (item 1) until
// that one lands; then it should call it.
func (s *Server) knownCorpus(name string) (string, error) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "local:")
	dir := s.app.Cfg.CorporaDir()
	if local.Exists(dir, name) || catalog.IsRemote(dir, name) {
		return name, nil // (without listing: that opens every corpus)
	}
	infos, err := catalog.List(dir)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(infos))
	for _, in := range infos {
		names = append(names, in.Name)
	}
	msg := fmt.Sprintf("the user has no corpus named %q", name)
	if near := suggest.Closest(name, names); near != "" {
		return "", fmt.Errorf("%s — did you mean %s?", msg, near)
	}
	if len(names) == 0 {
		return "", fmt.Errorf("%s (the user has no corpus yet)", msg)
	}
	return "", fmt.Errorf("%s; the corpora are: %s", msg, strings.Join(names, ", "))
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
