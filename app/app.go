// Package app wires prefrag together: configuration, the session store, the
// LLM backends, the corpora and the web engines. The CLI, the TUI and the
// evaluation harness all build on it; it holds no engine logic.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
	"github.com/prefrag/prefrag/store"
)

// App is an opened prefrag home.
type App struct {
	Cfg     *config.Config
	Store   *store.Store
	Log     *slog.Logger
	Prompts *prompts.Set
	// StandIns, when set, replace the model server and the web engine
	// (standin.go: prefrag demo).
	StandIns *StandIns
	logFile  io.Closer
	// distinct keeps the never-leave corpora's distinctive strings
	// (distinctive.go).
	distinct distinctCache
}

// Open creates the home directory if needed and opens the store and log.
func Open(ctx context.Context, cfg *config.Config) (*App, error) {
	if err := os.MkdirAll(cfg.CorporaDir(), 0o755); err != nil {
		// A read-only home that exists can still be read (the store opens
		// its database read-only); elsewhere the error stands.
		if fi, serr := os.Stat(cfg.Home); serr != nil || !fi.IsDir() {
			return nil, fmt.Errorf("cannot create %s: %w", cfg.Home, err)
		}
	}
	a := &App{Cfg: cfg}
	f, err := os.OpenFile(cfg.LogPath(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		a.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	} else {
		a.logFile = f
		a.Log = slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	if a.Prompts, err = prompts.Load(cfg.PromptsDir); err != nil {
		a.Close()
		return nil, err
	}
	if a.Store, err = store.Open(ctx, cfg.DBPath()); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Close releases the store and the log.
func (a *App) Close() error {
	var err error
	if a.Store != nil {
		err = a.Store.Close()
	}
	if a.logFile != nil {
		a.logFile.Close()
	}
	return err
}

// Model is an LLM backend as the app uses it: the engine's interface plus
// the health check and identity of a session manifest.
type Model interface {
	engine.LLM
	Check(ctx context.Context) error
	Digest(ctx context.Context) (string, error)
	Model() string
}

// NewModel builds the backend for a model name. llm_timeout bounds both
// the wait for the first byte of an answer and any silence mid-stream; the
// health check gets at most 10 s, less when llm_timeout is shorter.
func (a *App) NewModel(s engine.RunConfig, model string) (Model, error) {
	if m := a.standInModel(); m != nil {
		return m, nil
	}
	t := a.Cfg.LLMTimeout
	check := 10 * time.Second
	if t > 0 && t < check {
		check = t
	}
	// The backend's row of llm's table builds it, with the API key from
	// the row's variables.
	return llm.NewClient(s.LLM, s.LLMURL, model, llm.WithFirstByteTimeout(t), llm.WithIdleTimeout(t), llm.WithCheckTimeout(check))
}

// ResolveServed completes settings with what only the server knows, once
// the models have been checked: the model's name when none was given (a
// llama.cpp server serves one model) and one slot's context as the server
// reports it (llama.cpp /props n_ctx, vLLM max_model_len, Ollama's /v1
// runner context, Ollama's model context length when below --num-ctx),
// which then bounds prompts and generation limits instead of --num-ctx.
func ResolveServed(s *engine.RunConfig, step, judge Model) {
	if s.Model == "" {
		s.Model = step.Model()
	}
	if s.JudgeModel == "" {
		s.JudgeModel = judge.Model()
	}
	if nc, ok := step.(interface{ NumCtx() int }); ok && nc.NumCtx() > 0 {
		s.ServerCtx = nc.NumCtx()
	}
	// Ollama runs no request with more than the model's own context
	// length (/api/show), whatever num_ctx says.
	if cc, ok := step.(interface{ ContextCap() int }); ok && cc.ContextCap() > 0 && cc.ContextCap() < s.NumCtx {
		s.ServerCtx = cc.ContextCap()
	}
}

// Models builds the reasoning model and the judge model (the same client
// when they are the same model).
func (a *App) Models(s engine.RunConfig) (step, judge Model, err error) {
	if step, err = a.NewModel(s, s.Model); err != nil {
		return nil, nil, err
	}
	judge = step
	if s.JudgeModel != "" && s.JudgeModel != s.Model {
		if judge, err = a.NewModel(s, s.JudgeModel); err != nil {
			return nil, nil, err
		}
	}
	return step, judge, nil
}

// CheckModels verifies, within seconds, that the server answers and has
// both models. Its errors are the user-facing sentences of llm's typed
// errors.
func CheckModels(ctx context.Context, step, judge Model) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := step.Check(ctx); err != nil {
		return err
	}
	if judge != step {
		return judge.Check(ctx)
	}
	return nil
}
