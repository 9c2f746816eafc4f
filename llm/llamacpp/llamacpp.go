// Package llamacpp is the llama.cpp backend (llama-server's HTTP API).
//
// How a prompt is sent: llama-server's native POST /completion takes a raw
// prompt, and an instruct model fed an untemplated prompt answers badly. So
// each generation first asks POST /apply-template to wrap the prompt, as one
// user message, in the model's own chat template, then streams POST
// /completion with that text, "cache_prompt": true and a pinned "id_slot".
// This keeps the two things the PrefRAG loop needs for speed: the server's
// prompt cache, and a second slot for the judge (id_slot 0 for reasoning
// steps, forced and single-shot answers, 1 for the judge and every other
// call that asks for structured output), so the judge's
// prompt does not evict the step prompt's cache. Start the server with
// `-np 2` (or more) for that.
//
// Slots: GET /props tells how many slots the server has; with fewer than two
// no slot is pinned for the judge (upstream llama-server does not reject an
// unknown slot, it waits for it forever). When /props is missing, slots are
// pinned and a server that rejects the slot makes the client fall back to
// "id_slot": -1 once, for the rest of the client's life.
//
// Older servers without /apply-template (404) get the OpenAI-compatible
// POST /v1/chat/completions stream instead, with the same sampling fields,
// cache_prompt and id_slot; the client remembers the choice.
//
// Structured output (the judge) is "json_schema" on /completion and
// "response_format" {"type": "json_schema"} on the chat endpoint. A server
// that refuses it (any HTTP 400: llama-server answers "Failed to
// initialize samplers: std::exception" when it cannot build the schema's
// grammar) is asked once more for a plain JSON object ({"type": "object"},
// json_object on the chat endpoint), and then without a constraint, the
// reply checked against the schema; the fallback is remembered for the run
// (package structured).
//
// An API key (`llama-server --api-key`) is read by AuthFromEnv and sent as
// "Authorization: Bearer …"; it never appears in a message. Token
// counts come from the final event: tokens_evaluated (or timings.prompt_n +
// timings.cache_n), timings.cache_n for cached prompt tokens, and
// tokens_predicted. The context size is the server's (-c); Options.NumCtx
// cannot change it per request, and NumCtx() reports it.
//
// Limits and errors are those of the Ollama backend: a dial timeout (3 s), a
// first-event timeout (10 min), an idle timeout between events (2 min), no
// overall timeout, no retries (but the one slot fallback), and a stream
// that ends without its final event is an llm.ServerError whose Response
// still holds the text received.
package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/structured"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

const backend = "llamacpp"

// Slots used for each purpose when the server has two or more.
const (
	StepSlot  = 0
	JudgeSlot = 1
)

type mode int

const (
	modeUnknown  mode = iota
	modeTemplate      // /apply-template + /completion
	modeChat          // /v1/chat/completions
)

// keyVar and fallbackKeyVar are the variables the API key is read from,
// in order: the backend's row of llm's table (KeyVars).
var (
	keyVar         = llm.BackendOf(backend).KeyVars[0]
	fallbackKeyVar = llm.BackendOf(backend).KeyVars[1]
)

// Client talks to one llama-server. It is safe for concurrent use.
type Client struct {
	ep transport.Endpoint

	mu         sync.Mutex
	model      string
	mode       mode
	probed     bool
	totalSlots int // from /props; 0 when unknown
	nCtx       int
	modelPath  string
	modelAlias string
	slotsOff   bool // the server rejected a pinned slot
	propsOK    bool // /props answered as llama-server does
}

// Option configures a Client: llm.WithFirstByteTimeout,
// llm.WithIdleTimeout, llm.WithCheckTimeout, llm.WithAuth (the key of
// `llama-server --api-key`, see AuthFromEnv).
type Option = llm.Option

// New returns a client for the llama-server at baseURL (default port 8080).
// model may be empty: llama-server serves one model, and Check then adopts
// its name. It does not contact the server.
func New(baseURL, model string, opts ...Option) (*Client, error) {
	ep, err := transport.Open(backend, baseURL, llm.BackendOf(backend).DefaultPort, opts)
	if err != nil {
		return nil, err
	}
	c := &Client{ep: ep, model: strings.TrimSpace(model)}
	c.ep.Refused = c.httpError
	return c, nil
}

// Model is the model name given, or the server's once Check has run.
func (c *Client) Model() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.model
}

// URL is the server address in use, without its password.
func (c *Client) URL() string { return c.ep.Addr }

// NumCtx is the context size of one slot as /props reported it (0 before
// Check or the first generation, or when the server does not say).
func (c *Client) NumCtx() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nCtx
}

// Generate runs one streaming generation; onToken (may be nil) receives each
// text delta.
func (c *Client) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	if len(req.Schema) == 0 {
		return c.generate(ctx, req, structured.None, onToken)
	}
	if err := c.probe(ctx); err != nil {
		return llm.Response{}, err
	}
	return structured.Generate(c.ep.Addr+"\x00"+c.Model(), req.Schema, func(f structured.Format) (llm.Response, error) {
		return c.generate(ctx, req, f, onToken)
	})
}

// generate runs one generation asking for structured output as f says,
// on the request's slot (falling back once when the server rejects it).
func (c *Client) generate(ctx context.Context, req llm.Request, f structured.Format, onToken llm.TokenFunc) (llm.Response, error) {
	start := time.Now()
	if err := c.probe(ctx); err != nil {
		return llm.Response{}, err
	}
	slot := c.slotFor(req)
	for {
		resp, err := c.generateOnce(ctx, req, f, slot, onToken)
		resp.Duration = time.Since(start)
		if slot >= 0 && isSlotRejection(err) {
			c.mu.Lock()
			c.slotsOff = true
			c.mu.Unlock()
			slot = -1
			continue
		}
		return resp, err
	}
}

// slotFor pins the judge, and every other call that asks for structured
// output (the claim check, the retrieval gate), to the judge's slot when
// the server has one for it: the step prompt's cache stays on its own.
func (c *Client) slotFor(req llm.Request) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.slotsOff || !c.probed {
		return -1
	}
	judge := req.Purpose == llm.PurposeJudge || len(req.Schema) > 0
	switch {
	case c.totalSlots == 1 && judge:
		return -1 // one slot only: let the server choose rather than wait for slot 1
	case judge:
		return JudgeSlot // two slots or more, or unknown (then a rejection falls back)
	}
	return StepSlot
}

func isSlotRejection(err error) bool {
	var se *llm.ServerError
	return errors.As(err, &se) && se.Status >= 400 && se.Status < 500 &&
		strings.Contains(strings.ToLower(se.Message), "slot")
}

func (c *Client) generateOnce(ctx context.Context, req llm.Request, f structured.Format, slot int, onToken llm.TokenFunc) (llm.Response, error) {
	c.mu.Lock()
	m := c.mode
	c.mu.Unlock()
	if m != modeChat {
		prompt, err := c.applyTemplate(ctx, req.Prompt)
		switch {
		case errors.Is(err, transport.ErrNoEndpoint):
			c.setMode(modeChat)
		case err != nil:
			return llm.Response{}, err
		default:
			c.setMode(modeTemplate)
			return c.complete(ctx, req, f, prompt, slot, onToken)
		}
	}
	return c.chat(ctx, req, f, slot, onToken)
}

func (c *Client) setMode(m mode) {
	c.mu.Lock()
	c.mode = m
	c.mu.Unlock()
}

// applyTemplate wraps the prompt in the model's chat template.
func (c *Client) applyTemplate(ctx context.Context, prompt string) (string, error) {
	body := map[string]any{"messages": []map[string]string{{"role": "user", "content": prompt}}}
	if m := c.Model(); m != "" {
		body["model"] = m
	}
	var out struct {
		Prompt *string `json:"prompt"`
	}
	if err := c.ep.DoJSON(ctx, http.MethodPost, "/apply-template", body, &out, c.ep.Timeouts.FirstByte); err != nil {
		return "", err
	}
	if out.Prompt == nil {
		return "", &llm.ServerError{Backend: backend, Message: "/apply-template answered without a prompt"}
	}
	return *out.Prompt, nil
}

// props is what the client reads from GET /props.
type props struct {
	TotalSlots      int    `json:"total_slots"`
	ModelPath       string `json:"model_path"`
	ModelAlias      string `json:"model_alias"`
	DefaultSettings struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
	// NCtx is where older llama-server versions put a slot's context.
	NCtx int `json:"n_ctx"`
}

// slotCtx is one slot's context (-c divided by -np), wherever this
// server version reports it.
func (p props) slotCtx() int {
	if p.DefaultSettings.NCtx > 0 {
		return p.DefaultSettings.NCtx
	}
	return p.NCtx
}

// servedName is how a session records the model llama-server serves: its
// alias when one was given (-a), else the GGUF file's name.
func servedName(alias, modelPath string) string {
	base := path.Base(strings.ReplaceAll(modelPath, `\`, "/"))
	if modelPath == "" {
		base = ""
	}
	if alias != "" && alias != modelPath && alias != base {
		return alias
	}
	if base != "" {
		return base
	}
	return alias
}

// probe reads /props once per client (again after a failed attempt). Only
// the caller's cancellation is an error: a server without /props is fine.
func (c *Client) probe(ctx context.Context) error {
	c.mu.Lock()
	done := c.probed
	c.mu.Unlock()
	if done {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, c.ep.Timeouts.Check)
	defer cancel()
	var p props
	err := c.ep.DoJSON(cctx, http.MethodGet, "/props", nil, &p, 0)
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", backend, ctx.Err())
	}
	var le *llm.LoadingError
	var se *llm.ServerError
	if errors.As(err, &le) || errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
		return err
	}
	if err != nil && !errors.Is(err, transport.ErrNoEndpoint) {
		// Unreachable or odd: leave it to the generation request to report.
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.probed = true
	if err == nil {
		c.propsOK = p.DefaultSettings.NCtx > 0 || p.TotalSlots > 0 || p.NCtx > 0 || p.ModelPath != ""
		c.totalSlots, c.nCtx = p.TotalSlots, p.slotCtx()
		c.modelPath, c.modelAlias = p.ModelPath, p.ModelAlias
		if c.model == "" {
			c.model = servedName(p.ModelAlias, p.ModelPath)
		}
	}
	return nil
}

// Check answers quickly whether the server is up, loaded and serves the
// model: nil, *llm.UnreachableError, *llm.LoadingError,
// *llm.ModelNotFoundError or *llm.ServerError.
func (c *Client) Check(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, c.ep.Timeouts.Check)
	defer cancel()
	var health struct {
		Status *string `json:"status"`
	}
	err := c.ep.DoJSON(cctx, http.MethodGet, "/health", nil, &health, 0)
	if err != nil && !errors.Is(err, transport.ErrNoEndpoint) && !errors.Is(err, transport.ErrNotJSON) {
		return c.checkError(ctx, cctx, err)
	}
	noHealth := err != nil
	if err := c.probe(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	llama := c.propsOK
	c.mu.Unlock()
	if !llama && health.Status == nil {
		// Neither /health nor /props answered as llama-server does: say
		// what answers instead, when it is another kind of server.
		if looks := transport.Identify(cctx, c.ep.HTTP, c.ep.Base, c.ep.Auth); looks == "ollama" || looks == "openai" {
			return &llm.WrongServerError{Backend: backend, Addr: c.ep.Addr, Looks: looks,
				Evidence: "GET /health and GET /props did not answer as llama-server does"}
		}
	}
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	err = c.ep.DoJSON(cctx, http.MethodGet, "/v1/models", nil, &models, 0)
	if errors.Is(err, transport.ErrNoEndpoint) {
		c.mu.Lock()
		noProps := c.modelPath == "" && c.modelAlias == "" && c.totalSlots == 0 && c.nCtx == 0
		c.mu.Unlock()
		if noHealth && noProps {
			return c.notLlamaServer(cctx)
		}
		return nil
	}
	if err != nil {
		return c.checkError(ctx, cctx, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	names := []string{c.modelAlias, c.modelPath}
	for _, m := range models.Data {
		names = append(names, m.ID)
	}
	if c.model == "" {
		for _, n := range names {
			if n != "" {
				c.model = servedName("", n) // a /v1/models id may be a path
				break
			}
		}
		return nil
	}
	if !modelMatches(c.model, names) {
		return &llm.ModelNotFoundError{Backend: backend, Model: c.model, Served: c.servedNames(names)}
	}
	return nil
}

// servedNames is how the error for a wrong --model names what the server
// serves: its alias or GGUF file name, else the /v1/models ids.
func (c *Client) servedNames(names []string) []string {
	if n := servedName(c.modelAlias, c.modelPath); n != "" {
		return []string{n}
	}
	var out []string
	for _, n := range names {
		if n != "" {
			out = append(out, servedName("", n))
		}
	}
	return out
}

// notLlamaServer is the error for an address where /health, /props and
// /v1/models are all missing: whatever answers there is not llama-server.
func (c *Client) notLlamaServer(ctx context.Context) error {
	looks := ""
	var v struct {
		Version *string `json:"version"`
	}
	if c.ep.DoJSON(ctx, http.MethodGet, "/api/version", nil, &v, 0) == nil && v.Version != nil {
		looks = "ollama"
	} else if l := transport.Identify(ctx, c.ep.HTTP, c.ep.Base, c.ep.Auth); l != backend {
		looks = l
	}
	return &llm.WrongServerError{Backend: backend, Addr: c.ep.Addr, Looks: looks,
		Evidence: "GET /health, /props and /v1/models all answered 404"}
}

func (c *Client) checkError(parent, cctx context.Context, err error) error {
	return transport.CheckError(parent, cctx, backend, c.ep.Addr, c.ep.Timeouts.Check, err)
}

// modelMatches compares loosely: llama-server names its model by alias or
// GGUF path, users by something like "qwen2.5-7b". Names match when one
// contains the other after dropping directories, ".gguf", case and the
// separators ':' '_' ' '.
func modelMatches(want string, names []string) bool {
	w := normalizeModel(want)
	for _, n := range names {
		h := normalizeModel(n)
		if h == "" {
			continue
		}
		if strings.Contains(h, w) || strings.Contains(w, h) {
			return true
		}
	}
	return false
}

func normalizeModel(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return ""
	}
	s = path.Base(strings.ReplaceAll(s, `\`, "/"))
	s = strings.TrimSuffix(s, ".gguf")
	return strings.NewReplacer(":", "-", "_", "-", " ", "-").Replace(s)
}

// Digest identifies the served model for the session manifest: the GGUF
// path /props reports, else its alias, else the model name.
func (c *Client) Digest(ctx context.Context) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, c.ep.Timeouts.Check)
	defer cancel()
	var p props
	err := c.ep.DoJSON(cctx, http.MethodGet, "/props", nil, &p, 0)
	if err != nil && !errors.Is(err, transport.ErrNoEndpoint) {
		return "", c.checkError(ctx, cctx, err)
	}
	for _, s := range []string{p.ModelPath, p.ModelAlias, c.Model()} {
		if s != "" {
			return s, nil
		}
	}
	return "", &llm.ServerError{Backend: backend, Message: "the server does not say which model it serves (no /props) — pass --model"}
}
