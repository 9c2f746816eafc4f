// Package llm holds the types shared by the LLM backends (llm/ollama,
// llm/llamacpp): one request shape, one response shape and typed errors. The
// engine declares the interface it needs from a backend; this package only
// gives both sides a common vocabulary.
package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Purpose says what a call is for. Backends may route on it (llama.cpp puts
// the judge on its own slot so the step prompt's cache is kept).
type Purpose string

const (
	PurposeStep   Purpose = "step"
	PurposeJudge  Purpose = "judge"
	PurposeForced Purpose = "forced"
	PurposeAnswer Purpose = "answer" // single-shot baselines
)

// Options are the sampling settings sent with every request.
type Options struct {
	NumCtx      int     `json:"num_ctx"`
	Temperature float64 `json:"temperature"`
	TopP        float64 `json:"top_p"`
	Seed        *int    `json:"seed,omitempty"`
	NumPredict  int     `json:"num_predict,omitempty"` // 0: server default
}

// Request is one single-turn generation: the engine re-renders one user
// prompt per call (append-only between steps), as the paper's code does.
type Request struct {
	Purpose Purpose
	Prompt  string
	Stop    []string
	// Schema, when set, asks for structured JSON output matching it
	// (Ollama "format", llama.cpp "json_schema").
	Schema  json.RawMessage
	Options Options
}

// Response is what came back, with the server's own token accounting.
type Response struct {
	Text               string
	Model              string
	PromptTokens       int
	CachedPromptTokens int
	OutputTokens       int
	Duration           time.Duration
	// DoneReason is "stop", "length" or what the server said.
	DoneReason string
}

// TokenFunc receives streamed text deltas. It may be nil.
type TokenFunc func(delta string)

// ErrUnreachable is matched by errors meaning the server did not answer.
var ErrUnreachable = errors.New("llm server unreachable")

// ErrModelNotFound is matched when the server does not have the model.
var ErrModelNotFound = errors.New("model not found")

// UnreachableError names the address and how to start the server.
type UnreachableError struct {
	Backend string // "ollama" or "llamacpp"
	Addr    string
	Err     error
}

func (e *UnreachableError) Error() string {
	hint := "start it with `ollama serve`"
	if e.Backend == "llamacpp" {
		hint = "start it with `llama-server -m MODEL.gguf --port 8080 -np 2`"
	}
	return fmt.Sprintf("cannot reach the %s server at %s — %s, or pass --llm-url", e.Backend, e.Addr, hint)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }

// ModelNotFoundError names the missing model.
type ModelNotFoundError struct {
	Backend string
	Model   string
}

func (e *ModelNotFoundError) Error() string {
	if e.Backend == "llamacpp" {
		return fmt.Sprintf("model %s not found — the llama.cpp server serves a different model; restart it with -m pointing to %s", e.Model, e.Model)
	}
	return fmt.Sprintf("model %s not found — run `ollama pull %s`", e.Model, e.Model)
}

func (e *ModelNotFoundError) Is(target error) bool { return target == ErrModelNotFound }

// ServerError is any other non-2xx answer or a stream that broke off.
type ServerError struct {
	Backend string
	Status  int
	Message string
}

func (e *ServerError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: %s", e.Backend, e.Message)
	}
	return fmt.Sprintf("%s answered HTTP %d: %s", e.Backend, e.Status, e.Message)
}

// ErrLoading is matched when the server is up but still loading its model.
var ErrLoading = errors.New("llm server is still loading the model")

// LoadingError says the server answered but is not ready yet (llama.cpp
// /health answers 503 while it loads the model file).
type LoadingError struct {
	Backend string
	Addr    string
}

func (e *LoadingError) Error() string {
	return fmt.Sprintf("the %s server at %s is still loading its model — wait until it has finished, then try again", e.Backend, e.Addr)
}

func (e *LoadingError) Is(target error) bool { return target == ErrLoading }
