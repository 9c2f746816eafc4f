package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/prefrag/prefrag/app/delivery"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/sources/remote"
	"github.com/prefrag/prefrag/sources/web"
	"github.com/prefrag/prefrag/store"
)

// AskRequest is one question to run and record.
type AskRequest struct {
	Question string
	Settings engine.RunConfig
	// Emit receives every event after it is stored (token events are not
	// stored but still delivered), in order, on a goroutine of the run's
	// event pipeline; consecutive token deltas may arrive merged into one.
	Emit engine.Emitter
	// Consent for web policy "ask"; nil makes "ask" act as "never".
	Consent engine.ConsentFunc
	// SkipCheck skips the LLM health check (the caller already did it).
	SkipCheck bool
	// SessionID, when set, is used instead of a new id.
	SessionID string
	// Continue, when set, is the id (or unique prefix) of a stored session
	// the question follows up: it runs as the next turn of that thread
	// (thread.go).
	Continue string
	// Rerun, when set, records in the manifest that this run re-runs a
	// stored session and which settings it did not take from it.
	Rerun *Rerun
	// Explicit names the privacy settings given for this question itself
	// (engine.PrivacyWeb, engine.PrivacyNeverLeave): only those may loosen
	// the privacy a thread keeps from its earlier turns.
	Explicit []string
}

// Rerun is what a re-run's manifest says about its origin.
type Rerun struct {
	Of      string               `json:"of"`
	Changed []config.RerunChange `json:"changed,omitempty"`
}

// AskResult is a recorded run.
type AskResult struct {
	SessionID string
	Result    engine.Result
}

// Manifest records what a session needs to be re-run the same way.
type Manifest struct {
	Model       string           `json:"model"`
	ModelDigest string           `json:"model_digest,omitempty"`
	JudgeModel  string           `json:"judge_model,omitempty"`
	JudgeDigest string           `json:"judge_digest,omitempty"`
	LLM         string           `json:"llm"`
	Options     map[string]any   `json:"options"`
	PromptsHash string           `json:"prompts_hash"`
	Overrides   []string         `json:"prompt_overrides,omitempty"`
	Corpora     []CorpusIdentity `json:"corpora"`
	WebEngine   string           `json:"web_engine,omitempty"`
	// WebURL is the engine's base URL (a SearXNG instance), never a key.
	WebURL string            `json:"web_url,omitempty"`
	Extra  map[string]string `json:"extra,omitempty"`
	// Rerun is set on a session made by `sessions rerun`.
	Rerun *Rerun `json:"rerun,omitempty"`
}

// CorpusIdentity identifies a corpus as it was when searched.
type CorpusIdentity struct {
	Name      string    `json:"name"`
	Documents int64     `json:"documents"`
	Passages  int64     `json:"passages"`
	Updated   time.Time `json:"updated"`
	// Remote identifies a remote corpus (kind, URL without credentials,
	// index, the cluster's name, uuid and version when known).
	Remote *remote.Identity `json:"remote,omitempty"`
}

// Ask runs one question with the engine and records the session: every
// event is committed to the store as it is emitted, so a crash loses
// nothing that was already shown.
func (a *App) Ask(ctx context.Context, req AskRequest) (AskResult, error) {
	if d := a.Cfg.RunTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errRunTimeout)
		defer cancel()
	}
	res, err := a.ask(ctx, req)
	if err != nil && context.Cause(ctx) == errRunTimeout {
		err = &DeadlineError{Limit: a.Cfg.RunTimeout, SessionID: res.SessionID, Err: err}
	}
	return res, err
}

// errRunTimeout is the cause of a run stopped by run_timeout.
var errRunTimeout = errors.New("run timeout")

// DeadlineError is a run stopped by run_timeout (--run-timeout): it ended
// like a cancellation (the partial session is kept, its status is
// "cancelled"), and it still matches what the run returned
// (engine.ErrCancelled, context.DeadlineExceeded).
type DeadlineError struct {
	Limit     time.Duration
	SessionID string // "" when it stopped before a session was created
	Err       error
}

func (e *DeadlineError) Error() string {
	msg := fmt.Sprintf("the run reached its time limit (--run-timeout %s) and was stopped", e.Limit)
	if e.SessionID != "" {
		msg += "; the partial session is saved as " + e.SessionID
	}
	return msg + " — raise --run-timeout (or run_timeout in the config file) to give it longer"
}

func (e *DeadlineError) Unwrap() error { return e.Err }

func (a *App) ask(ctx context.Context, req AskRequest) (AskResult, error) {
	s := req.Settings
	m, err := a.askModels(ctx, req, &s)
	if err != nil {
		return AskResult{}, err
	}
	id := req.SessionID
	if id == "" {
		id = NewSessionID()
	}
	var thread *engine.Thread
	if req.Continue != "" {
		if id, thread, err = a.threadOf(ctx, req.Continue); err != nil {
			return AskResult{}, err
		}
	}
	srcs, err := a.OpenSources(ctx, s, id)
	if err != nil {
		return AskResult{}, err
	}
	defer srcs.Close()
	s.Corpora, s.CorpusChoice, s.MCP = srcs.Corpora, srcs.Choice, srcs.MCPNames()
	s.LLMURL = llm.WithoutCredentials(s.LLMURL) // settings are stored and exported
	eng, err := engine.New(engine.Config{LLM: m.step, Judge: m.judge, Proxy: m.proxy, Sources: srcs.List, Prompts: a.Prompts})
	if err != nil {
		return AskResult{}, err
	}
	manifest := a.manifest(ctx, s, m.step, m.judge, srcs)
	manifest.Rerun = req.Rerun
	cfgJSON, _ := json.Marshal(s)
	manJSON, _ := json.Marshal(manifest)
	sess := store.Session{ID: id, Question: req.Question, Model: s.Model, Started: time.Now().UTC(),
		Corpora: srcs.Corpora, Config: cfgJSON, Manifest: manJSON}
	if err := a.openSession(ctx, sess, thread); err != nil {
		return AskResult{}, err
	}
	res, err := a.runRecorded(ctx, eng, req, s, srcs, id, thread)
	return AskResult{SessionID: id, Result: res}, err
}

// askModels are the models a question runs with.
type askModels struct{ step, judge, proxy Model }

// askModels opens the step and judge models the settings name (checked
// unless the caller did it) and the proxy. It resolves the never-leave
// names and what the servers serve into s.
func (a *App) askModels(ctx context.Context, req AskRequest, s *engine.RunConfig) (askModels, error) {
	// Every never-leave name names a corpus (its callers resolved it
	// already and showed the notes; this is the guard for any that did
	// not): one that names none is refused before anything runs.
	nl, _, err := a.ResolveNeverLeave(s.NeverLeave, "")
	if err != nil {
		return askModels{}, err
	}
	s.NeverLeave = nl
	step, judge, err := a.Models(*s)
	if err != nil {
		return askModels{}, err
	}
	if !req.SkipCheck {
		if err := CheckModels(ctx, step, judge); err != nil {
			return askModels{}, err
		}
	} else if s.Model == "" || llm.BackendOf(s.LLM).NamesItsModel {
		// The server names its model and slot context only when asked.
		_ = step.Check(ctx)
	}
	proxy, err := a.Proxy(ctx, *s, step, judge)
	if err != nil {
		return askModels{}, err
	}
	ResolveServed(s, step, judge)
	return askModels{step, judge, proxy}, nil
}

// runRecorded runs the question of the opened session id (a turn of thread
// when not nil) and records it: every event is stored as it comes, then the
// session is finished with the run's status and answer.
func (a *App) runRecorded(ctx context.Context, eng *engine.Engine, req AskRequest, s engine.RunConfig, srcs *Sources, id string, thread *engine.Thread) (engine.Result, error) {
	// engine → persist (batched commits) → req.Emit, off the engine's
	// goroutine: an event is shown only after the commit that stored it,
	// and token deltas never hold the engine up (see app/delivery).
	persist := func(evs []engine.Event) error {
		err := a.Store.AppendEvents(context.WithoutCancel(ctx), evs)
		if err != nil {
			a.Log.Error("append event", "session", id, "err", err)
		}
		return err
	}
	pipe := delivery.New(persist, req.Emit, 0)
	consent := req.Consent
	if consent != nil {
		consent = func(cctx context.Context, cr engine.ConsentRequest) (engine.Consent, error) {
			pipe.Flush() // what led to the question is shown before it
			return req.Consent(cctx, cr)
		}
	}
	a.Log.Info("ask", "session", id, "strategy", s.Strategy, "model", s.Model, "corpora", srcs.Corpora, "web", s.Web)
	res, runErr := eng.Run(ctx, engine.Request{SessionID: id, Question: req.Question, Settings: s.Settings, Wiring: s.Wiring,
		Emit: pipe.Emit, Consent: consent, Thread: thread, Explicit: req.Explicit, Notices: srcs.Notices,
		Distinctive: a.Distinctive, Calibration: a.calibrationKeeper(s.LLM, s.Model)})
	// Everything emitted (the final event of a cancelled run included) is
	// stored and delivered before the session is finished.
	storeErr := pipe.Close()
	status := store.StatusAnswered
	switch {
	case errors.Is(runErr, engine.ErrCancelled):
		status = store.StatusCancelled
	case runErr != nil:
		status = store.StatusFailed
	}
	counts, _ := json.Marshal(res.Counts)
	answer, label := sessionAnswer(res, thread)
	if err := a.Store.FinishSession(context.WithoutCancel(ctx), id, status, answer, label, counts); err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil && storeErr != nil {
		runErr = fmt.Errorf("the session could not be fully saved: %w", storeErr)
	}
	a.Log.Info("done", "session", id, "status", status, "err", runErr)
	return res, runErr
}

func (a *App) manifest(ctx context.Context, s engine.RunConfig, step, judge Model, srcs *Sources) Manifest {
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	m := Manifest{Model: s.Model, LLM: s.LLM, PromptsHash: a.Prompts.Hash(), Overrides: a.Prompts.Overridden(),
		Options: config.ManifestOptions(s)}
	if s.ServerCtx > 0 {
		m.Options["server_n_ctx"] = s.ServerCtx
	}
	m.ModelDigest, _ = step.Digest(dctx)
	if judge != step {
		m.JudgeModel = s.JudgeModel
		m.JudgeDigest, _ = judge.Digest(dctx)
	}
	for _, src := range srcs.List {
		if g, ok := src.(*remote.Guarded); ok {
			id := g.Identity(dctx)
			m.Corpora = append(m.Corpora, CorpusIdentity{Name: g.Name(), Documents: id.Documents, Remote: &id})
		}
		if c, ok := src.(*local.Corpus); ok {
			st, err := c.Stats()
			if err == nil {
				m.Corpora = append(m.Corpora, CorpusIdentity{Name: c.Name(), Documents: st.Documents, Passages: st.Passages, Updated: st.Updated})
			}
		}
	}
	if w := a.standInWeb(); w != nil && srcs.Web == nil {
		m.WebEngine = w.Name()
	}
	if srcs.Web != nil {
		m.WebEngine = srcs.Web.Name()
		// As before the engine table: a keyed API's endpoint is not
		// recorded, only the key-less engines' (a SearXNG instance).
		if spec, ok := web.LookupEngine(s.WebEngine); ok && !spec.NeedsKey() {
			m.WebURL, _ = a.Cfg.WebEndpoint(s.WebEngine)
		}
	}
	if h, err := os.Hostname(); err == nil {
		m.Extra = map[string]string{"host": h}
	}
	return m
}

// RestoreWeb points the app's web engine where a recorded session's was,
// unless the configuration already names one.
func (a *App) RestoreWeb(s engine.RunConfig, manifest []byte) {
	var m Manifest
	if json.Unmarshal(manifest, &m) != nil || m.WebURL == "" {
		return
	}
	a.Cfg.RestoreWebURL(s.WebEngine, m.WebURL)
}
