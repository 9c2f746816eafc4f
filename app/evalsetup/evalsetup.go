// Package evalsetup wires an evaluation run from the app: the models
// checked once, the sources opened once, and a backend that answers each
// question through the engine (or through app.Ask, storing sessions). It
// sits in the app layer so that the evaluation harness (package eval)
// stays below it.
package evalsetup

import (
	"context"
	"fmt"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources/web"
)

// Setup is what an evaluation runs with: a backend over the app's models
// and sources, and the settings as resolved (corpora, web engine).
type Setup struct {
	Backend  eval.Backend
	Settings engine.RunConfig
	close    func()
}

// Close releases the sources.
func (s *Setup) Close() {
	if s.close != nil {
		s.close()
	}
}

// Options choose how questions are run.
type Options struct {
	// StoreSessions records every question as a user session (app.Ask)
	// instead of running the engine directly.
	StoreSessions bool
	// StandIn, when set, is the web source (a SearXNG engine on it with an
	// in-memory cache, so its results never enter the user's web cache).
	StandIn *eval.StandIn
}

// New checks the models (within seconds) and opens the sources once
// for the whole run.
func New(ctx context.Context, a *app.App, s engine.RunConfig, opts Options) (*Setup, error) {
	if opts.StoreSessions && opts.StandIn != nil {
		return nil, fmt.Errorf("%w: sessions cannot be stored while the search-engine stand-in plays the web (its results would enter the web cache)", engine.ErrInvalidSettings)
	}
	step, judge, err := a.Models(s)
	if err != nil {
		return nil, err
	}
	if err := app.CheckModels(ctx, step, judge); err != nil {
		return nil, err
	}
	proxy, err := a.Proxy(ctx, s, step, judge)
	if err != nil {
		return nil, err
	}
	app.ResolveServed(&s, step, judge)
	// Settings are written into every record's session event: no
	// credentials from the LLM URL.
	s.LLMURL = llm.WithoutCredentials(s.LLMURL)
	open := s
	if opts.StandIn != nil {
		open.Web = engine.WebNever
	}
	srcs, err := a.OpenSources(ctx, open, "")
	if err != nil {
		return nil, err
	}
	s.Corpora, s.CorpusChoice, s.MCP = srcs.Corpora, srcs.Choice, srcs.MCPNames()
	list := srcs.List
	if opts.StandIn != nil {
		w, err := web.New(web.SearXNG, web.Config{BaseURL: opts.StandIn.URL(), Cache: web.NewMemoryCache(0),
			MinInterval: -1, BreakerThreshold: -1, Guard: web.NewHostGuard(nil), Logger: a.Log})
		if err != nil {
			srcs.Close()
			return nil, err
		}
		s.WebEngine = web.SearXNG
		if s.Web != engine.WebNever {
			list = append(list, w)
		}
	}
	if opts.StoreSessions {
		srcs.Close()
		return &Setup{Backend: sessionBackend{a: a}, Settings: s}, nil
	}
	eng, err := engine.New(engine.Config{LLM: step, Judge: judge, Proxy: proxy, Sources: list, Prompts: a.Prompts})
	if err != nil {
		srcs.Close()
		return nil, err
	}
	return &Setup{Backend: engineBackend{eng: eng}, Settings: s, close: srcs.Close}, nil
}

// engineBackend runs questions on one engine; nothing is stored.
type engineBackend struct{ eng *engine.Engine }

func (b engineBackend) Answer(ctx context.Context, q eval.Question, s engine.RunConfig, emit engine.Emitter) (string, engine.Result, error) {
	res, err := b.eng.Run(ctx, engine.Request{SessionID: "eval-" + s.Strategy + "-" + q.ID, Question: q.Text, Settings: s.Settings, Wiring: s.Wiring, Emit: emit})
	return "", res, err
}

// sessionBackend records each question as a session, as `prefrag ask`
// would.
type sessionBackend struct{ a *app.App }

func (b sessionBackend) Answer(ctx context.Context, q eval.Question, s engine.RunConfig, emit engine.Emitter) (string, engine.Result, error) {
	res, err := b.a.Ask(ctx, app.AskRequest{Question: q.Text, Settings: s, Emit: emit, SkipCheck: true})
	return res.SessionID, res.Result, err
}
