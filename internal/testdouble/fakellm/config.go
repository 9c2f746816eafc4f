package fakellm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Config is the JSON script the fakellm command reads:
//
//	{"steps": ["Thought: …\nAction: …"], "judges": ["{\"analysis\":\"…\",\"status\":true}"],
//	 "rules": [{"contains": "…", "kind": "step", "reply": "…"}],
//	 "chunk_delay_ms": 5}
//
// Rules are tried first, in order; calls no rule answers take the next
// scripted step or judge.
type Config struct {
	Steps        []string     `json:"steps"`
	Judges       []string     `json:"judges"`
	Rules        []RuleConfig `json:"rules"`
	ChunkDelayMS int          `json:"chunk_delay_ms"`
	LatencyMS    int          `json:"latency_ms"`
	Models       []string     `json:"models"`
	Slots        int          `json:"slots"`
	IgnoreStop   bool         `json:"ignore_stop"`
	// ContextLength, EnforceContext and LegacyProps: see the options of
	// the same names.
	ContextLength  int  `json:"context_length"`
	EnforceContext bool `json:"enforce_context"`
	LegacyProps    bool `json:"legacy_props"`
	// OpenAI serves the OpenAI-compatible protocol (vLLM's shapes) instead
	// of Ollama's and llama.cpp's; RefuseJSONSchema: see the option.
	OpenAI           bool `json:"openai"`
	RefuseJSONSchema bool `json:"refuse_json_schema"`
	// SamplerRefusal, AsOllama, KillAfter and RequireAPIKey: see the
	// options of the same names.
	SamplerRefusal bool   `json:"sampler_refusal"`
	AsOllama       bool   `json:"as_ollama"`
	KillAfter      int    `json:"kill_after"`
	RequireAPIKey  string `json:"require_api_key"`
	// TruncateLikeOllama, IgnoreTruncate and CountByScript: see the
	// options of the same names.
	TruncateLikeOllama bool    `json:"truncate_like_ollama"`
	IgnoreTruncate     bool    `json:"ignore_truncate"`
	CountByScript      bool    `json:"count_by_script"`
	DenseScripts       float64 `json:"dense_scripts"`
	// EmbedModels, EmbedDims, EmbedDelayMS, EmbedErrors, PoolingNone and
	// EmbedBatchTokens: see the options of the same names (embed.go).
	EmbedModels      []string `json:"embed_models"`
	EmbedDims        int      `json:"embed_dims"`
	EmbedDelayMS     int      `json:"embed_delay_ms"`
	EmbedErrors      int      `json:"embed_errors"`
	PoolingNone      bool     `json:"pooling_none"`
	EmbedBatchTokens int      `json:"embed_batch_tokens"`
}

// RuleConfig is one rule of a Config.
type RuleConfig struct {
	Contains string `json:"contains"`
	Kind     string `json:"kind"` // "step", "judge" or empty for both
	Reply    string `json:"reply"`
	// Status and Error make the rule answer with an HTTP error.
	Status int    `json:"status"`
	Error  string `json:"error"`
	// DieAfter drops the connection after that many chunks.
	DieAfter int `json:"die_after"`
	// Endless streams the reply over and over, ignoring the generation
	// limit, until the client goes away.
	Endless bool `json:"endless"`
	// Runaway repeats the reply up to the generation limit, where the
	// server stops it with "length".
	Runaway bool `json:"runaway"`
}

// ParseConfig reads and checks a Config. Unknown fields are errors, so a
// typo in a script does not pass silently.
func ParseConfig(data []byte) (Config, error) {
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("fakellm script: %w", err)
	}
	if dec.More() {
		return Config{}, errors.New("fakellm script: more than one JSON value")
	}
	for i, r := range c.Rules {
		switch Kind(r.Kind) {
		case "", KindStep, KindJudge:
		default:
			return Config{}, fmt.Errorf("fakellm script: rule %d: kind must be \"step\", \"judge\" or empty, not %q", i+1, r.Kind)
		}
		if r.Status != 0 && (r.Status < 100 || r.Status > 599) {
			return Config{}, fmt.Errorf("fakellm script: rule %d: status %d is not an HTTP status", i+1, r.Status)
		}
	}
	if c.ChunkDelayMS < 0 || c.LatencyMS < 0 || c.Slots < 0 || c.ContextLength < 0 || c.KillAfter < 0 || c.DenseScripts < 0 {
		return Config{}, errors.New("fakellm script: chunk_delay_ms, latency_ms, slots, context_length, kill_after and dense_scripts must not be negative")
	}
	if c.EmbedDims < 0 || c.EmbedDelayMS < 0 || c.EmbedErrors < 0 || c.EmbedBatchTokens < 0 {
		return Config{}, errors.New("fakellm script: embed_dims, embed_delay_ms, embed_errors and embed_batch_tokens must not be negative")
	}
	return c, nil
}

// Responder returns the rules, falling back to the step and judge queues.
func (c Config) Responder() Responder {
	rules := make([]Rule, 0, len(c.Rules))
	for _, r := range c.Rules {
		rules = append(rules, Rule{Contains: r.Contains, Kind: Kind(r.Kind),
			Reply: Reply{Text: r.Reply, Status: r.Status, Error: r.Error, DieAfter: r.DieAfter, Endless: r.Endless, Runaway: r.Runaway}})
	}
	return Rules{List: rules, Else: &Script{Steps: c.Steps, Judges: c.Judges}}
}

// Options returns the server options the Config asks for.
func (c Config) Options() []Option {
	var opts []Option
	if c.ChunkDelayMS > 0 {
		opts = append(opts, ChunkDelay(time.Duration(c.ChunkDelayMS)*time.Millisecond))
	}
	if c.LatencyMS > 0 {
		opts = append(opts, Latency(time.Duration(c.LatencyMS)*time.Millisecond))
	}
	if len(c.Models) > 0 {
		opts = append(opts, Models(c.Models...))
	}
	if c.Slots > 0 {
		opts = append(opts, Slots(c.Slots))
	}
	if c.IgnoreStop {
		opts = append(opts, IgnoreStop())
	}
	if c.ContextLength > 0 {
		opts = append(opts, ContextLength(c.ContextLength))
	}
	if c.EnforceContext {
		opts = append(opts, EnforceContext())
	}
	if c.LegacyProps {
		opts = append(opts, LegacyProps())
	}
	if c.OpenAI {
		opts = append(opts, OpenAI())
	}
	if c.RefuseJSONSchema {
		opts = append(opts, RefuseJSONSchema())
	}
	if c.SamplerRefusal {
		opts = append(opts, SamplerRefusal())
	}
	if c.AsOllama {
		opts = append(opts, AsOllama())
	}
	if c.KillAfter > 0 {
		opts = append(opts, KillAfter(c.KillAfter))
	}
	if c.TruncateLikeOllama {
		opts = append(opts, TruncateLikeOllama())
	}
	if c.IgnoreTruncate {
		opts = append(opts, IgnoreTruncate())
	}
	if c.CountByScript {
		opts = append(opts, CountByScript())
	}
	if c.DenseScripts > 0 {
		opts = append(opts, DenseScripts(c.DenseScripts))
	}
	if c.RequireAPIKey != "" {
		opts = append(opts, RequireAPIKey(c.RequireAPIKey))
	}
	return append(opts, c.embedOptions()...)
}

// embedOptions are the options of the embedding keys.
func (c Config) embedOptions() []Option {
	var opts []Option
	if len(c.EmbedModels) > 0 {
		opts = append(opts, EmbedModels(c.EmbedModels...))
	}
	if c.EmbedDims > 0 {
		opts = append(opts, EmbedDims(c.EmbedDims))
	}
	if c.EmbedDelayMS > 0 {
		opts = append(opts, EmbedDelay(time.Duration(c.EmbedDelayMS)*time.Millisecond))
	}
	if c.EmbedErrors > 0 {
		opts = append(opts, EmbedErrors(c.EmbedErrors))
	}
	if c.PoolingNone {
		opts = append(opts, PoolingNone())
	}
	if c.EmbedBatchTokens > 0 {
		opts = append(opts, EmbedBatchTokens(c.EmbedBatchTokens))
	}
	return opts
}
