package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/suggest"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/mcp"
)

// SourceRow is one source as `prefrag sources` lists it.
type SourceRow struct {
	Name string `json:"name"`
	// Kind is the kinds table's label: local, remote, mcp, web.
	Kind string `json:"kind"`
	// Leaves says a query to it leaves the machine.
	Leaves bool `json:"leaves_machine"`
	// WebPolicy says it obeys the web policy and consent.
	WebPolicy bool   `json:"web_policy"`
	State     string `json:"state"`
	// OK is false when the source cannot be used (a declaration with a
	// problem, a server that fails).
	OK bool `json:"ok"`
	// Transport, Where and Tool are an MCP server's: stdio, http or sse;
	// its command or URL (no secret); its search tool.
	Transport string `json:"transport,omitempty"`
	Where     string `json:"where,omitempty"`
	Tool      string `json:"tool,omitempty"`
	// NeverLeave says the source is never-leave in this run: queries
	// built from its passages, or carrying its distinctive strings, do not
	// leave the machine without consent.
	NeverLeave bool `json:"never_leave,omitempty"`
}

// probeCap bounds how long listing waits for one MCP server.
const probeCap = 10 * time.Second

// ListSources is every source a run with s would search, in preference
// order, then the declared MCP servers that cannot be used. With connect,
// each MCP server is connected to (at once, each within its timeout, at
// most probeCap) to say its state and search tool; no query is sent.
func (a *App) ListSources(ctx context.Context, s engine.RunConfig, connect bool) ([]SourceRow, error) {
	srcs, err := a.OpenSources(ctx, s, "")
	if err != nil {
		return nil, err
	}
	defer srcs.Close()
	infos, _ := catalog.List(a.Cfg.CorporaDir())
	byName := map[string]catalog.Info{}
	for _, in := range infos {
		byName[in.Name] = in
	}
	rows := make([]SourceRow, len(srcs.List))
	var wg sync.WaitGroup
	for i, src := range srcs.List {
		rows[i] = rowOf(src)
		switch src := src.(type) {
		case *mcp.Source:
			rows[i].State, rows[i].OK = "declared; connects at its first search", true
			if connect {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rows[i].State, rows[i].Tool, rows[i].OK = probeState(ctx, src)
				}()
			}
		default:
			n, _ := sources.ParseName(src.Name())
			rows[i].State, rows[i].OK = corpusState(byName[n.ID], src.Kind()), true
			if src.Kind() == sources.KindWeb {
				rows[i].State = "web policy " + s.Web
			}
		}
	}
	wg.Wait()
	for i, src := range srcs.List {
		for _, name := range s.NeverLeave {
			if sources.IsNamed(src.Name(), name) {
				rows[i].NeverLeave, rows[i].State = true, "never-leave, "+rows[i].State
				break
			}
		}
	}
	if srcs.Web == nil {
		rows = append(rows, SourceRow{Name: sources.WebName(s.WebEngine).String(), Kind: sources.KindWeb.String(), Leaves: true, WebPolicy: true,
			State: "off: web policy never", OK: true})
	}
	return append(rows, a.unusableRows()...), nil
}

// rowOf fills what the kinds table says of a source.
func rowOf(src engine.Source) SourceRow {
	k := src.Kind()
	r := SourceRow{Name: src.Name(), Kind: k.String(), Leaves: k.Leaves(), WebPolicy: k.FollowsWebPolicy()}
	if m, ok := src.(*mcp.Source); ok {
		r.Transport, r.Where = m.Server().Transport, m.Server().Where()
	}
	return r
}

// corpusState is a corpus's line: pinned, documents, or its problem.
func corpusState(in catalog.Info, k sources.Kind) string {
	state := fmt.Sprintf("%d documents", in.Stats.Documents)
	switch {
	case in.Problem != "":
		state = "problem: " + in.Problem
	case k == sources.KindRemote:
		state = "remote index (" + in.Remote + ")"
	case in.Busy:
		state = "being indexed"
	}
	if in.Pinned {
		state = "pinned, " + state
	}
	return state
}

// probeState connects to a server: "ready: N tools" and its search tool,
// or why it cannot be used.
func probeState(ctx context.Context, src *mcp.Source) (state, tool string, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, probeCap)
	defer cancel()
	p, err := src.Probe(ctx)
	if err != nil {
		return "fails: " + reason(err), "", false
	}
	state = fmt.Sprintf("ready: %d tools", len(p.Tools))
	if p.Server != "" {
		state += " (" + p.Server + ")"
	}
	return state, p.Search, true
}

// reason is a source error without the source's own name before it.
func reason(err error) string {
	var ue *sources.UnavailableError
	if errors.As(err, &ue) {
		return textsafe.OneLine(ue.Err.Error())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + probeCap.String()
	}
	return textsafe.OneLine(err.Error())
}

// unusableRows are the declared MCP servers whose declaration has a
// problem.
func (a *App) unusableRows() []SourceRow {
	servers, _, _ := a.MCPDeclarations()
	var out []SourceRow
	for _, srv := range servers {
		if srv.Problem == "" {
			continue
		}
		r := SourceRow{Name: srv.SourceName(), Kind: sources.KindMCP.String(), State: "not used: " + srv.Problem, Transport: srv.Transport}
		if srv.Transport != "" {
			k := srv.Kind()
			r.Leaves, r.WebPolicy, r.Where = k.Leaves(), k.FollowsWebPolicy(), srv.Where()
		}
		out = append(out, r)
	}
	return out
}

// CheckReport is what `prefrag sources check` found.
type CheckReport struct {
	Row   SourceRow
	Probe *mcp.Probe // an MCP server's tools
	Query string
	Docs  []sources.Document
	Took  time.Duration
	// Partial is the note of a search whose answer was cut.
	Partial string
}

// ErrNoSource is matched when a name names no source.
var ErrNoSource = errors.New("no such source")

// CheckSource connects to the source name names (a corpus, "mcp:NAME" or
// a server's bare name, "web" or "web:ENGINE"), lists an MCP server's
// tools and runs one search with query. A source that fails is the error.
func (a *App) CheckSource(ctx context.Context, s engine.RunConfig, name, query string) (CheckReport, error) {
	n, typed := sources.ParseName(name)
	if (!typed || n.Kind.IsCorpus()) && catalogHas(a.Cfg.CorporaDir(), n.ID) {
		s.Corpora, s.Prefer = []string{n.ID}, nil
	}
	if name == "web" || typed && n.Kind == sources.KindWeb {
		if s.Web == engine.WebNever {
			return CheckReport{}, fmt.Errorf("%w: the web policy is never, so nothing is sent to the web: check it with --web auto", engine.ErrInvalidSettings)
		}
		name = sources.WebName(s.WebEngine).String()
	}
	s.Prefer = nil
	srcs, err := a.OpenSources(ctx, s, "")
	if err != nil {
		return CheckReport{}, err
	}
	defer srcs.Close()
	i := findSource(srcs.List, name)
	if i < 0 {
		return CheckReport{}, a.noSource(name, srcs.List)
	}
	src := srcs.List[i]
	if err := a.checkMayLeave(ctx, s, src, query); err != nil {
		return CheckReport{}, err
	}
	rep := CheckReport{Row: rowOf(src), Query: query}
	if m, ok := src.(*mcp.Source); ok {
		p, err := m.Probe(ctx)
		if err != nil {
			return rep, err
		}
		rep.Probe, rep.Row.Tool = &p, p.Search
	}
	t0 := time.Now()
	docs, err := src.Search(ctx, query, 5)
	rep.Took = time.Since(t0)
	var te *sources.TruncatedError
	if errors.As(err, &te) {
		rep.Partial, err = textsafe.OneLine(te.Error()), nil
	}
	for _, d := range docs {
		rep.Docs = append(rep.Docs, d.Sanitized())
	}
	return rep, err
}

// checkMayLeave refuses a check's query that a run would hold (the
// command itself is the user's consent otherwise): to a source that obeys
// the web policy, none under never; to any source whose queries leave the
// machine, none carrying a distinctive string of a never-leave corpus (the
// error names the corpus, never the string), and none at all while a
// never-leave corpus cannot be read to check it.
func (a *App) checkMayLeave(ctx context.Context, s engine.RunConfig, src engine.Source, query string) error {
	k := src.Kind()
	if !k.Leaves() {
		return nil
	}
	if k.FollowsWebPolicy() && s.Web == engine.WebNever {
		return fmt.Errorf("%w: the web policy is never, so nothing is sent to %s (a query to it leaves the machine): check it with --web auto", engine.ErrInvalidSettings, src.Name())
	}
	for _, name := range s.NeverLeave {
		if sources.IsNamed(src.Name(), name) {
			continue // a never-leave remote index is searched for itself
		}
		d, err := a.Distinctive(ctx, name)
		if err != nil {
			return fmt.Errorf("%w: never-leave corpus %q could not be read to check the query (%v), so nothing was sent to %s", engine.ErrInvalidSettings, name, err, src.Name())
		}
		if m, ok := d.Find(query); ok {
			return fmt.Errorf("%w: the query carries %s from never-leave corpus %q, so nothing was sent to %s: check it with another --query", engine.ErrInvalidSettings, m.Kind, name, src.Name())
		}
	}
	return nil
}

func catalogHas(dir, name string) bool {
	infos, _ := catalog.List(dir)
	for _, in := range infos {
		if in.Name == name {
			return true
		}
	}
	return false
}

// noSource says a name names no source, with what it might be.
func (a *App) noSource(name string, list []engine.Source) error {
	servers, _, _ := a.MCPDeclarations()
	for _, srv := range servers {
		if srv.Problem != "" && (name == srv.Name || name == srv.SourceName()) {
			return fmt.Errorf("the MCP server %q is declared but cannot be used: %s", srv.Name, srv.Problem)
		}
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name())
	}
	msg := fmt.Sprintf("%q names no corpus, MCP server or web engine", name)
	if near := suggest.Closest(name, names); near != "" {
		msg += " — did you mean " + near + "?"
	} else {
		msg += " — `prefrag sources` lists them"
	}
	return fmt.Errorf("%w: %s", ErrNoSource, msg)
}
