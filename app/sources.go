package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/sources/mcp"
	"github.com/prefrag/prefrag/sources/web"
	"github.com/prefrag/prefrag/store"
)

// ErrNoCorpus is matched when a named corpus does not exist.
var ErrNoCorpus = errors.New("no such corpus")

// CorpusOrder resolves which corpora a run searches, in preference order:
// the --corpus list when given, else the pinned corpus, else none (see
// ResolveCorpora).
func (a *App) CorpusOrder(s engine.RunConfig) ([]string, error) {
	names, _, err := a.ResolveCorpora(s)
	return names, err
}

// ResolveCorpora returns the corpora a run searches and why
// (engine.Corpora*): the corpora named with --corpus or in the config;
// else the pinned corpus; else none. With nothing pinned and nothing named,
// no corpus is picked on the user's behalf (not "default", not the only
// one): a question then searches no local corpus, and the run says so.
func (a *App) ResolveCorpora(s engine.RunConfig) ([]string, string, error) {
	if len(s.Corpora) > 0 {
		names, err := a.resolveCorpusNames(s.Corpora)
		return names, engine.CorporaGiven, err
	}
	pinned, err := catalog.Pinned(a.Cfg.CorporaDir())
	if err != nil {
		return nil, "", err
	}
	if pinned != "" {
		return []string{pinned}, engine.CorporaPinned, nil
	}
	infos, err := catalog.List(a.Cfg.CorporaDir())
	if err != nil {
		return nil, "", err
	}
	if len(infos) == 0 {
		return nil, engine.CorporaNoneExist, nil
	}
	return nil, engine.CorporaNonePinned, nil
}

// resolveCorpusNames reads corpus names as catalog.Resolve does
// ("local:notes" is notes). A name that names no corpus is left as given,
// for OpenSources to say how to create it, unless a known corpus is close
// to it: then the error asks whether that one was meant.
func (a *App) resolveCorpusNames(names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, n := range names {
		r, err := catalog.Resolve(a.Cfg.CorporaDir(), n)
		var unknown *catalog.UnknownCorpusError
		switch {
		case err == nil:
			n = r.Name
		case errors.As(err, &unknown) && (unknown.Near != "" || len(unknown.Matches) > 1):
			return nil, fmt.Errorf("%s: %w", a.Cfg.Name("corpora"), err)
		case !errors.As(err, &unknown):
			return nil, err
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Sources is the opened preference list of one run.
type Sources struct {
	List    []engine.Source
	Corpora []string
	// Choice says why Corpora are the ones searched (engine.Corpora*).
	Choice  string
	closers []func() error
	// MCP are the declared MCP servers, in the order declared.
	MCP []*mcp.Source
	// Notices say which declared sources are not used, and why.
	Notices []string
	// Web is the web engine, nil when the policy is never.
	Web *web.Engine
}

// MCPNames are the run's MCP servers' source names in preference order.
func (s *Sources) MCPNames() []string {
	var out []string
	for _, src := range s.List {
		if src.Kind().IsMCP() {
			out = append(out, src.Name())
		}
	}
	return out
}

// Close releases the corpora and ends the MCP servers' connections (a
// stdio server's process is stopped and reaped).
func (s *Sources) Close() {
	for _, c := range s.closers {
		c()
	}
}

// OpenSources opens the corpora (read-only, so the TUI and a headless ask
// can search at once) and the web engine for a run. sessionID ties web
// cache use to the session's manifest.
func (a *App) OpenSources(ctx context.Context, s engine.RunConfig, sessionID string) (*Sources, error) {
	names, choice, err := a.ResolveCorpora(s)
	if err != nil {
		return nil, err
	}
	out := &Sources{Corpora: names, Choice: choice}
	var corpora []engine.Source
	embedders := map[string]*Embedder{}
	for _, name := range names {
		c, err := a.openCorpus(ctx, s, name, embedders)
		if err != nil {
			out.Close()
			return nil, err
		}
		corpora = append(corpora, c)
		out.closers = append(out.closers, c.Close)
	}
	if err := a.openMCP(out); err != nil {
		out.Close()
		return nil, err
	}
	servers := make([]engine.Source, len(out.MCP))
	for i, m := range out.MCP {
		servers[i] = m
	}
	if out.List, err = preferOrder(corpora, servers, s.Prefer); err != nil {
		out.Close()
		return nil, err
	}
	if w := a.standInWeb(); w != nil && s.Web != engine.WebNever {
		out.List = append(out.List, w)
		return out, nil
	}
	if s.Web != engine.WebNever {
		w, err := a.WebEngine(s, sessionID)
		if err != nil {
			out.Close()
			return nil, err
		}
		out.Web = w
		out.List = append(out.List, w)
	}
	return out, nil
}

// Corpus is one corpus opened for searching, local or remote.
type Corpus interface {
	engine.Source
	Close() error
}

// OpenCorpus opens the corpus name for searching, local (read-only, so
// several processes can search it at once) or remote; a corpus that does
// not exist is ErrNoCorpus.
func (a *App) OpenCorpus(ctx context.Context, name string) (Corpus, error) {
	return a.openCorpus(ctx, a.Cfg.Settings, name, map[string]*Embedder{})
}

// openCorpus is OpenCorpus with a run's settings (its retrieval mode and
// embedding model) and the run's embedders, shared by its corpora.
func (a *App) openCorpus(ctx context.Context, s engine.RunConfig, name string, embedders map[string]*Embedder) (Corpus, error) {
	if catalog.IsRemote(a.Cfg.CorporaDir(), name) {
		// A remote corpus (remote.go) is searched, judged and cited
		// like a local one: its source is "local:<name>" too.
		g, err := a.openRemoteFor(ctx, s, name, embedders)
		if err != nil {
			return nil, err // not a nil *Guarded in a non-nil Corpus
		}
		return g, nil
	}
	c, err := a.OpenLocal(s, name, embedders)
	if errors.Is(err, local.ErrNotFound) {
		return nil, fmt.Errorf("%w %q: index files into it with `prefrag index --corpus %s PATH`", ErrNoCorpus, name, name)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// WebEngine builds the configured web engine with the SQLite cache.
func (a *App) WebEngine(s engine.RunConfig, sessionID string) (*web.Engine, error) {
	cfg := web.Config{
		Timeout: a.Cfg.WebTimeout,
		Allow:   a.Cfg.WebAllow,
		Deny:    a.Cfg.WebDeny,
		Offline: a.Cfg.Offline,
		Logger:  a.Log,
	}
	cache := store.WebCache{Store: a.Store, TTL: a.Cfg.WebCacheTTL, Offline: a.Cfg.Offline}
	if sessionID != "" {
		cache = cache.ForSession(sessionID)
	}
	cfg.Cache = cache
	cfg.BaseURL, cfg.APIKey = a.Cfg.WebEndpoint(s.WebEngine)
	return web.New(s.WebEngine, cfg)
}
