// Package openai is the backend for OpenAI-compatible model servers (vLLM,
// SGLang, LM Studio, LiteLLM, llama-server's /v1, Ollama's /v1): one
// streaming POST {base}/chat/completions per generation, with the request's
// prompt as the single user message.
//
// The base URL is the API root, e.g. http://host:8000/v1; a URL without a
// path gets /v1, and a bare host gets port 8000 (vLLM's default).
//
// What every request carries: model, messages, stream true,
// stream_options {include_usage: true}, temperature, top_p, max_tokens
// (always: the request's NumPredict, else transport.DefaultOutputCap capped
// at a quarter of the server's context when known), stop when the request
// has stop sequences, seed when set, and for structured output (the judge)
// response_format {type: json_schema, json_schema: {name, schema, strict}}.
//
// Structured output fallback: a server that refuses json_schema (see
// structured.IsRefusal: any 400 or 422, whatever its words) is asked again with
// {type: json_object}, and one that refuses that too without
// response_format; the reply is then validated against the schema (a
// subset of JSON Schema: type, properties, required, items, enum,
// additionalProperties false) and asked once more when it does not match.
// The fallback is remembered per server and model for the rest of the
// process.
//
// A refusal because prompt + max_tokens passes the context while the
// prompt alone fits (vLLM checks both) is asked once more with max_tokens
// lowered to the room left; a prompt that does not fit is an
// llm.ContextExceededError and is not retried.
//
// The client does not rely on the server honouring stop: it cuts the
// stream at the first stop sequence itself (holding back a partial match
// so that no streamed delta shows part of one) and stops reading; and the
// generation limit is enforced on the client side as on the other
// backends (DoneReason "length", CutByClient).
//
// Token accounting comes from the final usage chunk: prompt_tokens,
// completion_tokens and prompt_tokens_details.cached_tokens (absent: 0).
// finish_reason "length" is DoneReason "length".
//
// An API key (Auth, from PREFRAG_OPENAI_API_KEY or else OPENAI_API_KEY) is
// sent as "Authorization: Bearer …" and never appears in an error message:
// the client replaces it in anything the server says.
//
// Limits and errors are those of the other backends: a dial timeout, a
// first-byte timeout, an idle timeout between chunks, no overall timeout,
// no retries; errors are typed (llm.UnreachableError,
// llm.ModelNotFoundError naming the served models, llm.ContextExceededError
// for a prompt that does not fit, llm.WrongServerError, llm.ServerError
// whose message says what to do for 401/403/404/429/5xx).
package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/structured"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

const backend = "openai"

// DefaultURL is where an OpenAI-compatible server is looked for when no
// address is given: vLLM's default port (the backend table's row).
var DefaultURL = llm.BackendOf(backend).DefaultURL

// keyVar is prefrag's variable for the API key, the first of the backend's
// KeyVars (llm's table).
var keyVar = llm.BackendOf(backend).KeyVars[0]

// Auth is the API key sent as a bearer token (llm.Auth).
type Auth = llm.Auth

// Option configures a Client: llm.WithFirstByteTimeout,
// llm.WithIdleTimeout, llm.WithCheckTimeout, llm.WithAuth.
type Option = llm.Option

// Client talks to one OpenAI-compatible server about one model. It is safe
// for concurrent use.
type Client struct {
	ep transport.Endpoint

	mu     sync.Mutex
	model  string
	listed bool     // GET /models answered
	served []string // its ids
	root   string   // the served model's "root" (vLLM: its path or repository)
	nCtx   int      // max_model_len or similar; 0 when unknown
	ollama bool     // the server is Ollama (its /v1): see ollama.go
	ran    bool     // a generation has run (Ollama: /api/ps shows its runner)
	// modelCtx is the model's own context (Ollama's /api/show), 0 when
	// unknown.
	modelCtx int
}

// New returns a client for the server whose API root is baseURL. model may
// be empty: Check (or the first generation) then adopts the served model
// when the server serves exactly one. It does not contact the server.
func New(baseURL, model string, auth Auth, opts ...Option) (*Client, error) {
	ep, err := transport.Open(backend, baseURL, llm.BackendOf(backend).DefaultPort, append([]Option{llm.WithAuth(auth)}, opts...))
	if err != nil {
		return nil, err
	}
	if ep.Base.Path == "" {
		ep.Base.Path = "/v1"
		ep.Addr = llm.RedactURL(ep.Base.String())
	}
	c := &Client{ep: ep, model: strings.TrimSpace(model)}
	c.ep.Refused = c.httpError
	return c, nil
}

// Model is the model name given, or the served one once adopted.
func (c *Client) Model() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.model
}

// URL is the server address in use, without its password.
func (c *Client) URL() string { return c.ep.Addr }

// NumCtx is the served model's context as GET /models reported it (vLLM
// and SGLang: max_model_len); 0 before Check or when the server does not
// say.
func (c *Client) NumCtx() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nCtx
}

// modelEntry is one entry of GET /models.
type modelEntry struct {
	ID            string `json:"id"`
	Root          string `json:"root"`
	MaxModelLen   int    `json:"max_model_len"`
	ContextLength int    `json:"context_length"`
	ContextWindow int    `json:"context_window"`
}

func (m modelEntry) context() int {
	for _, n := range []int{m.MaxModelLen, m.ContextLength, m.ContextWindow} {
		if n > 0 {
			return n
		}
	}
	return 0
}

// list reads GET /models and remembers what it says.
func (c *Client) list(ctx context.Context) error {
	var out struct {
		Data []modelEntry `json:"data"`
	}
	if err := c.doJSON(ctx, http.MethodGet, "/models", nil, &out, 0); err != nil {
		if errors.Is(err, transport.ErrNoEndpoint) {
			return &llm.WrongServerError{Backend: backend, Addr: c.ep.Addr, Evidence: "GET " + c.pathOf("/models") + " answered 404",
				Looks: c.looks(ctx)}
		}
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listed = true
	c.served = c.served[:0]
	for _, m := range out.Data {
		if m.ID != "" {
			c.served = append(c.served, m.ID)
		}
	}
	if c.model == "" && len(out.Data) == 1 {
		c.model = out.Data[0].ID
	}
	for _, m := range out.Data {
		if sameModel(m.ID, c.model) {
			c.nCtx, c.root = m.context(), m.Root
		}
	}
	if c.nCtx > 0 || c.model == "" {
		return nil
	}
	model, ran := c.model, c.ran
	c.mu.Unlock()
	n, ollama := c.ollamaContext(ctx, model, ran)
	c.mu.Lock()
	c.nCtx, c.ollama = n, ollama
	return nil
}

// sameModel compares a served id with the model asked for. Ollama's /v1
// lists its models with their tag ("tinygo:latest") and serves a name
// without one as ":latest", so the implied tag is added before comparing.
func sameModel(served, model string) bool {
	return served == model || served != "" && model != "" && withTag(served) == withTag(model)
}

// withTag adds Ollama's implied ":latest" to a name whose last path part
// has no tag.
func withTag(name string) string {
	if strings.Contains(name[strings.LastIndex(name, "/")+1:], ":") {
		return name
	}
	return name + ":latest"
}

// pathOf is the full request path of an endpoint, for messages.
func (c *Client) pathOf(p string) string { return c.ep.Base.Path + p }

// Check answers quickly whether the server is up, takes the API key and
// serves the model (adopting the served model when none was given): nil,
// *llm.UnreachableError, *llm.ModelNotFoundError, *llm.WrongServerError or
// *llm.ServerError.
func (c *Client) Check(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, c.ep.Timeouts.Check)
	defer cancel()
	if err := c.list(cctx); err != nil {
		return c.checkError(ctx, cctx, err)
	}
	return c.servedCheck()
}

// servedCheck compares the model with what GET /models listed.
func (c *Client) servedCheck() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.model == "" {
		return &llm.ModelNotFoundError{Backend: backend, Served: append([]string(nil), c.served...), Listed: c.listed}
	}
	if len(c.served) == 0 {
		return nil // a proxy that lists nothing: let the generation tell
	}
	for _, s := range c.served {
		if sameModel(s, c.model) {
			return nil
		}
	}
	return &llm.ModelNotFoundError{Backend: backend, Model: c.model, Served: append([]string(nil), c.served...)}
}

func (c *Client) checkError(parent, cctx context.Context, err error) error {
	return transport.CheckError(parent, cctx, backend, c.ep.Addr, c.ep.Timeouts.Check, err)
}

// looks names the other kind of server that answers where an
// OpenAI-compatible API was expected ("" when none does).
func (c *Client) looks(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(c.ep.Timeouts.Check, 5*time.Second))
	defer cancel()
	if l := transport.Identify(ctx, c.ep.HTTP, c.ep.Base, c.ep.Auth); l != backend {
		return l
	}
	return ""
}

// ensureModel lists the served models once when no model was given.
func (c *Client) ensureModel(ctx context.Context) (string, error) {
	if m := c.Model(); m != "" {
		return m, nil
	}
	cctx, cancel := context.WithTimeout(ctx, c.ep.Timeouts.Check)
	defer cancel()
	if err := c.list(cctx); err != nil {
		return "", c.checkError(ctx, cctx, err)
	}
	if err := c.servedCheck(); err != nil {
		return "", err
	}
	return c.Model(), nil
}

// Digest identifies the served model for the session manifest: its "root"
// (vLLM: the weights' path or repository) when the server says, else its
// id.
func (c *Client) Digest(ctx context.Context) (string, error) {
	c.mu.Lock()
	listed, root, model := c.listed, c.root, c.model
	c.mu.Unlock()
	if !listed {
		cctx, cancel := context.WithTimeout(ctx, c.ep.Timeouts.Check)
		defer cancel()
		if err := c.list(cctx); err != nil {
			return "", c.checkError(ctx, cctx, err)
		}
		c.mu.Lock()
		root, model = c.root, c.model
		c.mu.Unlock()
	}
	if root != "" && root != model {
		return root, nil
	}
	if model == "" {
		return "", &llm.ServerError{Backend: backend, Message: "the server does not say which model it serves — pass --model"}
	}
	return model, nil
}

// Generate runs one streaming chat completion; onToken (may be nil)
// receives each text delta.
func (c *Client) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	start := time.Now()
	model, err := c.ensureModel(ctx)
	if err != nil {
		return llm.Response{Duration: time.Since(start)}, err
	}
	var resp llm.Response
	if len(req.Schema) == 0 {
		resp, err = c.chat(ctx, req, model, formatNone, onToken)
	} else {
		resp, err = c.structured(ctx, req, model, onToken)
	}
	resp.Duration = time.Since(start)
	c.mu.Lock()
	c.ran = true
	c.mu.Unlock()
	// The context this request really ran with (Ollama's /v1 may have
	// reloaded its runner for it).
	nCtx := c.ranOnOllama(ctx, model)
	if how, may := c.howCut(); err == nil && may {
		// A server that cuts an over-long prompt (Ollama's /v1) answers
		// normally: only usage.prompt_tokens shows it.
		err = llm.CheckCut(backend, req.Prompt, resp, nCtx, how, c.cutFix())
	}
	return resp, err
}

// structured runs a generation with structured output, falling back when
// the server refuses the schema (see structured.Generate).
func (c *Client) structured(ctx context.Context, req llm.Request, model string, onToken llm.TokenFunc) (llm.Response, error) {
	return structured.Generate(c.ep.Addr+"\x00"+model, req.Schema, func(f format) (llm.Response, error) {
		return c.chat(ctx, req, model, f, onToken)
	})
}

// format is how structured output is asked for.
type format = structured.Format

const (
	formatSchema = structured.Schema // response_format json_schema
	formatObject = structured.Object // response_format json_object + validation
	formatNone   = structured.None   // no response_format + validation
)

// maxTokens is the max_tokens sent: always one, so the server's own limit
// holds even where it defaults to "until the context is full".
func (c *Client) maxTokens(req llm.Request) int {
	if req.Options.NumPredict > 0 {
		return req.Options.NumPredict
	}
	n := transport.DefaultOutputCap
	if nc := c.NumCtx(); nc > 0 {
		n = min(n, max(nc/4, 16))
	}
	if req.Options.NumCtx > 0 {
		n = min(n, max(req.Options.NumCtx/4, 16))
	}
	return n
}

// body is the JSON of one chat completion request.
func (c *Client) body(req llm.Request, model string, f format) map[string]any {
	o := req.Options
	body := map[string]any{
		"model":          model,
		"messages":       []map[string]string{{"role": "user", "content": req.Prompt}},
		"stream":         true,
		"stream_options": map[string]bool{"include_usage": true},
		"temperature":    o.Temperature,
		"top_p":          o.TopP,
		"max_tokens":     c.maxTokens(req),
	}
	if stops := nonEmpty(req.Stop); len(stops) > 0 {
		body["stop"] = stops
	}
	if o.Seed != nil {
		body["seed"] = *o.Seed
	}
	if len(req.Schema) > 0 {
		switch f {
		case formatSchema:
			body["response_format"] = map[string]any{
				"type": "json_schema",
				"json_schema": map[string]any{"name": "response", "schema": strictSchema(req.Schema),
					"strict": true},
			}
		case formatObject:
			body["response_format"] = map[string]string{"type": "json_object"}
		}
	}
	return body
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
