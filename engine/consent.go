package engine

import "strings"

// noOptInNote says why a run without a local corpus sent no web query.
const noOptInNote = "the web was not searched: no local corpus is searched in this run, and without one no question leaves the machine unless you opt in (--web-only for this run, or web_only = true in the config)"

// needsWebOptIn reports whether the web is closed to this run because it
// searches no local corpus and the user did not opt in to web-only search.
// The default policy "auto" is not consent: a question with nothing local
// to check first would go straight to a search engine.
// MCP servers are not corpora: a run that searches only MCP servers needs
// the opt-in too (an http server, which obeys the web policy, included).
func (r *run) needsWebOptIn() bool {
	return !r.hasCorpus() && !r.settings.WebOnly
}

// hasCorpus reports whether the run searches a corpus, local or remote.
func (r *run) hasCorpus() bool {
	for _, s := range r.sources.local {
		if s.Kind().IsCorpus() {
			return true
		}
	}
	return false
}

// localMCP names the MCP servers searched whatever the web policy says
// (stdio, or declared local).
func (r *run) localMCP() []string {
	var out []string
	for _, s := range r.sources.local {
		if s.Kind().IsMCP() && !s.Kind().FollowsWebPolicy() {
			out = append(out, s.Name())
		}
	}
	return out
}

// nothingToSearchNote is the observation of an action with no usable source.
func (r *run) nothingToSearchNote() string {
	if len(r.sources.local) == 0 && len(r.sources.web) > 0 {
		return "no search source is available: " + r.webOffNote()
	}
	return "no search source is available: add a corpus with `prefrag index`, pin it with `prefrag corpora pin NAME`, or allow the web"
}

// noticeSources tells, right after the session event, what a run without
// a local corpus searches and why (a non-fatal error event): the web only
// when the user opted in, else nothing.
func (r *run) noticeSources() {
	if r.hasCorpus() {
		return
	}
	var b strings.Builder
	b.WriteString("no local corpus is searched")
	switch r.settings.CorpusChoice {
	case CorporaNonePinned:
		b.WriteString(": none is pinned and none was named with --corpus (pin one with `prefrag corpora pin NAME`, or pass --corpus NAME)")
	case CorporaNoneExist:
		b.WriteString(": there is none yet (create one with `prefrag index --corpus NAME FOLDER`)")
	}
	var names []string
	for _, w := range r.sources.web {
		names = append(names, w.Name())
	}
	switch {
	case len(r.sources.web) == 0 || r.settings.Web == WebNever:
		b.WriteString("; the web is not searched either (web policy never): nothing is searched")
	case r.needsWebOptIn():
		b.WriteString("; the web is not searched either: without a local corpus no question leaves the machine unless you opt in with --web-only for this run (or web_only = true in the config)")
	case !r.webAllowedAtAll():
		b.WriteString("; " + r.webOffNote() + ": nothing is searched")
	default:
		b.WriteString("; searching the web only (" + strings.Join(names, ", ") + "), as opted in with web-only")
		if r.settings.Web == WebAsk {
			b.WriteString(": each query waits for your consent")
		}
	}
	msg := b.String()
	if mcp := r.localMCP(); len(mcp) > 0 {
		only := "only the MCP servers on this machine are searched (" + strings.Join(mcp, ", ") + ")"
		msg = strings.Replace(msg, "nothing is searched", only, 1)
		msg = strings.Replace(msg, "searching the web only (", "searching "+strings.Join(mcp, ", ")+" and the web (", 1)
		if !strings.Contains(msg, strings.Join(mcp, ", ")) {
			msg += "; " + only
		}
	}
	r.warn(0, "", msg)
}
