package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/prompts"
	"github.com/prefrag/prefrag/sources"
)

// Config holds what an Engine is built from.
type Config struct {
	// LLM runs the reasoning steps and answers.
	LLM LLM
	// Judge runs the selection judge; nil means LLM.
	Judge LLM
	// Proxy runs the retrieval gate (heuristic answer, necessity judgment,
	// queries); nil means Judge.
	Proxy LLM
	// Sources in preference order: corpora first (the pinned one first),
	// then web engines.
	Sources []Source
	// Prompts; nil means the embedded templates.
	Prompts *prompts.Set
	// Now is the clock for event times; nil means time.Now.
	Now func() time.Time
}

// Engine runs questions. It is safe for concurrent use by several runs.
type Engine struct {
	cfg Config
}

// ErrNoLLM is returned by New without a model.
var ErrNoLLM = errors.New("engine needs an LLM")

// New checks the configuration.
func New(cfg Config) (*Engine, error) {
	if cfg.LLM == nil {
		return nil, ErrNoLLM
	}
	if cfg.Judge == nil {
		cfg.Judge = cfg.LLM
	}
	if cfg.Proxy == nil {
		cfg.Proxy = cfg.Judge
	}
	if cfg.Prompts == nil {
		cfg.Prompts = prompts.MustDefault()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Engine{cfg: cfg}, nil
}

// Request is one question to answer.
type Request struct {
	SessionID string
	Question  string
	Settings  Settings
	// Wiring is recorded in the session event beside the settings (as its
	// RunConfig); the engine does not read it.
	Wiring Wiring
	// Emit receives every event, token events included, in order.
	Emit Emitter
	// Consent is asked before web requests under policy "ask"; nil makes
	// "ask" behave as "never" (headless), and the observation says so.
	Consent ConsentFunc
	// Thread makes the question a follow-up of a stored session (thread.go);
	// nil for a new session.
	Thread *Thread
	// Calibration keeps the token estimate's calibration of the reasoning
	// model across runs (calibration.go); nil learns it for this run only.
	Calibration CalibrationKeeper
	// Distinctive opens a never-leave corpus's distinctive strings, which
	// every query that would leave the machine is checked against
	// (leak.go); nil checks only whether the context holds its passages.
	Distinctive DistinctiveFunc
	// Explicit names the privacy settings (PrivacyWeb, PrivacyNeverLeave)
	// the user gave for this question itself (a flag, not the config
	// file): only those may loosen a thread's privacy (privacy.go).
	Explicit []string
	// Notices are what the caller has to say about the run's sources (an
	// MCP server whose declaration cannot be used): each is a non-fatal
	// error event right after the session event.
	Notices []string
}

// Result summarises a finished run; the events tell the whole story.
type Result struct {
	Answer           string
	Label            string
	Forced           bool
	Cancelled        bool
	Counts           Counts
	Citations        []int
	InvalidCitations []int
}

// ErrCancelled is matched by the error of a run stopped by its context.
var ErrCancelled = errors.New("run cancelled")

// FatalError is an infrastructure failure that ended a run (LLM unreachable,
// model missing, server died twice); an error event with fatal=true was
// emitted for it.
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

// Run answers one question with the strategy named in the settings. It
// always ends with a final event, or with an error event for a fatal error.
// A cancelled run's final event carries the best partial answer and Run
// returns an error matching ErrCancelled and ctx.Err().
func (e *Engine) Run(ctx context.Context, req Request) (Result, error) {
	if err := req.Settings.Validate(); err != nil {
		return Result{}, err
	}
	strat, ok := LookupStrategy(req.Settings.Strategy)
	if !ok {
		return Result{}, fmt.Errorf("%w: unknown strategy %q", ErrInvalidSettings, req.Settings.Strategy)
	}
	if err := validThread(req.Thread); err != nil {
		return Result{}, err
	}
	r := newRun(e, req)
	if req.Thread == nil {
		p := r.privacy
		r.emit(Event{Payload: SessionStart{Question: req.Question, Config: &RunConfig{Settings: r.settings, Wiring: r.req.Wiring}, Privacy: &p}})
	} else if err := r.startTurn(ctx); err != nil {
		return r.finish(ctx, err)
	}
	r.noticeSources()
	for _, n := range req.Notices {
		r.warn(0, "", textsafe.ForTerminal(n))
	}
	err := strat.runner()(ctx, r)
	return r.finish(ctx, err)
}

// sourceList splits the configured sources by kind, keeping order.
func (e *Engine) sourceList() (local, web []Source) {
	for _, s := range e.cfg.Sources {
		if s.Kind() == sources.KindWeb {
			web = append(web, s)
		} else {
			local = append(local, s)
		}
	}
	return local, web
}
