package engine

import (
	"fmt"
	"strings"
)

// Web policies.
const (
	WebAuto  = "auto"
	WebAsk   = "ask"
	WebNever = "never"
)

// Answer styles.
const (
	StyleConcise = "concise"
	StyleReport  = "report"
)

// Settings are the effective settings of one run that the engine reads.
// What the caller wired the engine with (corpora, web engine, LLM backend,
// models) is Wiring; the two together are the run's RunConfig, written
// into the session event, so neither holds secrets.
type Settings struct {
	Strategy       string  `json:"strategy"`
	Web            string  `json:"web"`
	Model          string  `json:"model"`
	K              int     `json:"k"`
	MaxSteps       int     `json:"max_steps"`
	MaxReflections int     `json:"max_reflections"`
	JudgeFirst     bool    `json:"judge_first"`
	NumCtx         int     `json:"num_ctx"`
	Temperature    float64 `json:"temperature"`
	TopP           float64 `json:"top_p"`
	Seed           *int    `json:"seed,omitempty"`
	AnswerStyle    string  `json:"answer_style"`
	// PerSourceTools advertises one Search_<name> tool per source instead of
	// the single generic Search_Engine (paper Appendix E).
	PerSourceTools bool `json:"per_source_tools,omitempty"`
	// MaxOutputTokens is the generation limit of a reasoning step, forced
	// or single-shot answer (num_predict / n_predict), further capped at a
	// quarter of the context; the judge gets at most JudgeOutputTokens.
	MaxOutputTokens int `json:"max_output_tokens"`
	// ServerCtx is one slot's context as the server reported it (llama.cpp
	// /props n_ctx: -c divided by -np), 0 when unknown; when set it is the
	// context that counts, not NumCtx.
	ServerCtx int `json:"server_ctx,omitempty"`
	// NeverLeave names corpora whose passages must not leave the machine:
	// once one of their passages is in the context, no web query is sent
	// without the user's consent (and headless, none at all).
	NeverLeave []string `json:"never_leave,omitempty"`
	// WebOnly is the user's opt-in (--web-only for one run, web_only in the
	// config) to search the web when no local corpus is searched. Without
	// it such a run sends no web query whatever the web policy says: the
	// default "auto" is not consent.
	WebOnly bool `json:"web_only,omitempty"`
	// CorpusChoice says why Corpora are the ones searched: CorporaGiven,
	// CorporaPinned, CorporaNonePinned or CorporaNoneExist; "" when the
	// caller did not say.
	CorpusChoice string `json:"corpus_choice,omitempty"`
	// MaxDocChars caps how much of one document enters a prompt (step and
	// judge alike); 0 means no cap. See doccap.go.
	MaxDocChars int `json:"max_doc_chars"`
	// RefineBudget is the share of the context (percent, 0: the default
	// DefaultRefineBudget) a step's prompt plus its generation limit may use
	// before earlier observations are refined (strategies with Refine).
	RefineBudget int `json:"refine_budget,omitempty"`
	// VerifyClaims asks the judge model once per answer whether each
	// claim's quotes support it (evidence_verify.go).
	VerifyClaims bool `json:"verify_claims,omitempty"`
}

// Why a run searches the corpora it searches (Settings.CorpusChoice).
const (
	CorporaGiven      = "given"       // named with --corpus or in the config
	CorporaPinned     = "pinned"      // the pinned corpus
	CorporaNonePinned = "none-pinned" // corpora exist, none is pinned or named: none is searched
	CorporaNoneExist  = "none-exist"  // there is no corpus at all
)

// DefaultSettings are the paper's settings (§4.3, Appendix B.3).
func DefaultSettings() Settings {
	return Settings{
		Strategy:        "prefrag",
		Web:             WebAuto,
		K:               5,
		MaxSteps:        3,
		MaxReflections:  1,
		JudgeFirst:      true,
		NumCtx:          16384,
		Temperature:     0.1,
		TopP:            0.9,
		AnswerStyle:     StyleConcise,
		MaxOutputTokens: DefaultMaxOutputTokens,
		MaxDocChars:     DefaultMaxDocChars,
		RefineBudget:    DefaultRefineBudget,
	}
}

// Generation limits.
const (
	DefaultMaxOutputTokens = 1024
	// JudgeOutputTokens is plenty for {"analysis": …, "status": …}.
	JudgeOutputTokens = 512
)

// ContextTokens is the context the prompt must fit: the server's own
// figure when known, else the num_ctx sent.
func (s Settings) ContextTokens() int {
	if s.ServerCtx > 0 {
		return s.ServerCtx
	}
	return s.NumCtx
}

// OutputLimit is the generation limit of a call: MaxOutputTokens (the
// default when unset), at most a quarter of the context, and at most
// JudgeOutputTokens for the judge.
func (s Settings) OutputLimit(judge bool) int {
	n := s.MaxOutputTokens
	if n <= 0 {
		n = DefaultMaxOutputTokens
	}
	if c := s.ContextTokens(); c > 0 {
		n = min(n, max(c/4, 16))
	}
	if judge {
		n = min(n, JudgeOutputTokens)
	}
	return n
}

// FieldError is one invalid setting. Field is the setting's key: the JSON
// name of its Settings field, which is also its config-file key; Problem
// says what is wrong ("must be between 1 and 50, not 0"). The engine names
// no flag: callers word the field the way the user gave it (config does).
type FieldError struct {
	Field   string
	Problem string
}

func (e FieldError) Error() string { return e.Field + " " + e.Problem }

// SettingsError lists every invalid setting found by one validation; it
// matches ErrInvalidSettings.
type SettingsError struct {
	Fields []FieldError
	// Wording, when set, names a field for the user (a flag, a config-file
	// key); the bare field key otherwise.
	Wording func(field string) string
}

func (e *SettingsError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		name := f.Field
		if e.Wording != nil {
			name = e.Wording(f.Field)
		}
		parts[i] = name + " " + f.Problem
	}
	return ErrInvalidSettings.Error() + ": " + strings.Join(parts, "; ")
}

func (e *SettingsError) Unwrap() error { return ErrInvalidSettings }

// Validate checks the settings once, before a run. The error, if any, is a
// *SettingsError naming each invalid field by its key.
func (s Settings) Validate() error {
	var errs []FieldError
	bad := func(field, format string, a ...any) {
		errs = append(errs, FieldError{Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	if _, ok := LookupStrategy(s.Strategy); !ok {
		bad("strategy", "must be one of %s, not %q", strings.Join(StrategyNames(), ", "), s.Strategy)
	}
	switch s.Web {
	case WebAuto, WebAsk, WebNever:
	default:
		bad("web", "must be auto, ask or never, not %q", s.Web)
	}
	switch s.AnswerStyle {
	case StyleConcise, StyleReport:
	default:
		bad("answer_style", "must be concise or report, not %q", s.AnswerStyle)
	}
	if s.K < 1 || s.K > 50 {
		bad("k", "must be between 1 and 50, not %d", s.K)
	}
	if s.MaxSteps < 1 || s.MaxSteps > 20 {
		bad("max_steps", "must be between 1 and 20, not %d", s.MaxSteps)
	}
	if s.MaxReflections < 0 || s.MaxReflections > 5 {
		bad("max_reflections", "must be between 0 and 5, not %d", s.MaxReflections)
	}
	if s.MaxOutputTokens != 0 && (s.MaxOutputTokens < 16 || s.MaxOutputTokens > 65536) {
		bad("max_output_tokens", "must be between 16 and 65536, not %d", s.MaxOutputTokens)
	}
	if s.NumCtx < 512 {
		bad("num_ctx", "must be at least 512, not %d", s.NumCtx)
	}
	// Written so that NaN fails too (every comparison with NaN is false).
	if !(s.Temperature >= 0 && s.Temperature <= 2) {
		bad("temperature", "must be between 0 and 2, not %v", s.Temperature)
	}
	if !(s.TopP > 0 && s.TopP <= 1) {
		bad("top_p", "must be in (0, 1], not %v", s.TopP)
	}
	if s.MaxDocChars != 0 && (s.MaxDocChars < MinDocChars || s.MaxDocChars > MaxDocCharsLimit) {
		bad("max_doc_chars", "must be 0 (no cap) or between %d and %d, not %d", MinDocChars, MaxDocCharsLimit, s.MaxDocChars)
	}
	if s.RefineBudget != 0 && (s.RefineBudget < 10 || s.RefineBudget > 100) {
		bad("refine_budget", "must be 0 (the default, %d) or between 10 and 100, not %d", DefaultRefineBudget, s.RefineBudget)
	}
	if len(errs) > 0 {
		return &SettingsError{Fields: errs}
	}
	return nil
}
