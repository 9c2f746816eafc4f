// Package llm holds the types shared by the LLM backends (llm/ollama,
// llm/llamacpp, llm/openai): one request shape, one response shape and typed errors. The
// engine declares the interface it needs from a backend; this package only
// gives both sides a common vocabulary.
package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
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
	PurposeRefine Purpose = "refine" // observation refinement under the context budget
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
	// CutByClient is true when the client stopped reading because the
	// reply went past the request's NumPredict (a server that ignores its
	// generation limit); DoneReason is then "length".
	CutByClient bool
}

// DoneLength is the DoneReason of a reply that stopped on its generation
// limit (Ollama "length", llama.cpp stop_type "limit", OpenAI
// finish_reason "length").
const DoneLength = "length"

// Truncated reports whether the reply stopped on its generation limit
// rather than on its own.
func (r Response) Truncated() bool { return r.DoneReason == DoneLength }

// TokenFunc receives streamed text deltas. It may be nil.
type TokenFunc func(delta string)

// ErrUnreachable is matched by errors meaning the server did not answer.
var ErrUnreachable = errors.New("llm server unreachable")

// ErrModelNotFound is matched when the server does not have the model.
var ErrModelNotFound = errors.New("model not found")

// UnreachableError names the address and how to start the server.
type UnreachableError struct {
	Backend string // a name of the backend table
	Addr    string
	Err     error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the %s server at %s — %s, or pass --llm-url", e.Backend, e.Addr, StartHint(e.Backend, e.Addr))
}

// WithoutCredentials drops a URL's user:password@ part, for settings that
// are stored and exported (RedactURL keeps the user name for messages).
func WithoutCredentials(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// RedactURL removes the password of a URL's user:password@ part, for
// every message, event and log line that names a server.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil && u.Host == "" && strings.Contains(raw, "@") {
		// Not parseable as a URL with user info (e.g. "user:pw@host"
		// without a scheme): drop anything up to the last '@'.
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			if j := strings.Index(raw, "://"); j >= 0 && j < i {
				return raw[:j+3] + "xxxxx" + raw[i:]
			}
			return "xxxxx" + raw[i:]
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	return u.Redacted()
}

func (e *UnreachableError) Unwrap() error { return e.Err }

func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }

// ErrTimeout is matched when the server accepted the connection but did
// not answer within the client's limit.
var ErrTimeout = errors.New("llm server did not answer in time")

// TimeoutError says a limit fired while the server was there: it accepted
// the connection but sent no answer in time.
type TimeoutError struct {
	Backend string
	Addr    string
	Waited  time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the %s server at %s accepted the connection but sent no answer within %s — if it is only slow (loading a model, a long prompt), raise --llm-timeout (llm_timeout in the config file); else see the server's log",
		e.Backend, e.Addr, e.Waited)
}

func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// ModelNotFoundError names the missing model.
type ModelNotFoundError struct {
	Backend string
	Model   string // "" when none was given and the server serves several
	// Served lists the models the server says it serves, when it said
	// (OpenAI-compatible servers' GET /v1/models, llama-server's /props).
	Served []string
	// Listed is true when the server answered its model list (then an
	// empty Served means it lists none).
	Listed bool
}

func (e *ModelNotFoundError) Error() string { return BackendOf(e.Backend).MissingModel(e) }

func (e *ModelNotFoundError) Is(target error) bool { return target == ErrModelNotFound }

// ServedList names served models for a message: at most eight, quoted.
func ServedList(names []string) string {
	const most = 8
	q := make([]string, 0, most)
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		q = append(q, fmt.Sprintf("%q", n))
	}
	return strings.Join(q, ", ")
}

// ServerError is any other non-2xx answer or a stream that broke off.
type ServerError struct {
	Backend string
	Status  int
	Message string
	// Type is the server's error type when it gave one (llama.cpp's
	// "type", e.g. "invalid_request_error").
	Type string
}

// Retryable reports whether trying the same request again may succeed: a
// failure of the connection or the stream (no status), or a 5xx answer. A
// 4xx answer is the server's verdict on the request and would be repeated.
func (e *ServerError) Retryable() bool {
	return e.Status == 0 || e.Status >= 500
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

// ErrContextExceeded is matched when the prompt does not fit the server's
// context window.
var ErrContextExceeded = errors.New("prompt exceeds the context window")

// ContextExceededError is a server's refusal of a prompt longer than the
// context it runs a request with, recognised by its status and the shape
// of its error: llama-server's exceed_context_size_error (HTTP 400, also
// what Ollama passes on from its runner when a request sends "truncate":
// false), vLLM's "maximum context length" 400, OpenAI's
// context_length_exceeded. It is never worth sending again as it was.
type ContextExceededError struct {
	Backend      string
	PromptTokens int // 0 when the server did not say
	NCtx         int // the context the request ran with; 0 when the server did not say
	Message      string
	// Server names the server that refused, as the sentence says it
	// ("Ollama", "llama-server", "vLLM"); "" for the backend's title.
	Server string
	// PerSlot: NCtx is one slot's share of the server's context.
	PerSlot bool
	// Hint is the setting of that server that gives a request more room;
	// "" for the backend's ContextHint.
	Hint string
}

func (e *ContextExceededError) Error() string {
	size := "context window"
	if e.NCtx > 0 {
		size = fmt.Sprintf("context of %d tokens", e.NCtx)
		if e.PerSlot {
			size += " per slot"
		}
	}
	n := ""
	if e.PromptTokens > 0 {
		n = fmt.Sprintf(" (%d tokens)", e.PromptTokens)
	}
	server := e.Server
	if server == "" {
		server = BackendOf(e.Backend).Title
	}
	hint := e.Hint
	if hint == "" {
		hint = BackendOf(e.Backend).ContextHint
	}
	return fmt.Sprintf("the prompt%s does not fit %s %s, so the server refused it — %s", n, possessive(server), size, hint)
}

// possessive is "Ollama's", "a llama.cpp server's".
func possessive(name string) string { return name + "'s" }

func (e *ContextExceededError) Is(target error) bool { return target == ErrContextExceeded }

// ErrWrongServer is matched when the address answers HTTP but is not a
// server of the chosen backend.
var ErrWrongServer = errors.New("not a server of the chosen backend")

// WrongServerError says what is on the other end instead.
type WrongServerError struct {
	Backend string // the backend asked for
	Addr    string // redacted base URL
	// Evidence is what was observed, e.g. "GET /api/version answered 404".
	Evidence string
	// Looks names the backend it seems to be instead ("llamacpp", "ollama",
	// "openai"), or "" when it looks like none of them.
	Looks string
}

func (e *WrongServerError) Error() string {
	b, known := LookupBackend(e.Backend)
	name := e.Backend
	if known {
		name = b.Title
	}
	next := "check --llm-url"
	if b.URLHint != "" {
		next = b.URLHint
	}
	if l, ok := LookupBackend(e.Looks); ok {
		alt := ""
		if b.URLHint != "" {
			alt = ", or " + b.URLHint
		}
		next = "it looks like " + l.Kind + ": pass --llm " + l.Name + alt
	}
	return fmt.Sprintf("the server at %s does not look like %s (%s) — %s", e.Addr, name, e.Evidence, next)
}

func (e *WrongServerError) Is(target error) bool { return target == ErrWrongServer }
