// Package ollama is the Ollama backend: one streaming POST /api/chat per
// generation, with the request's prompt as the single user message, through
// the official client package github.com/ollama/ollama/api.
//
// What every request carries: options num_ctx, temperature and top_p always;
// stop when the request has stop sequences (an empty list is left out, since
// Ollama would let it replace the model's own stop parameters); seed and
// num_predict when set; format = the JSON schema when structured output is
// asked for (the selection judge).
//
// Token accounting comes from the final chunk: prompt_eval_count,
// prompt_eval_cached_count (sent by Ollama versions that report prompt-cache
// hits; absent means 0) and eval_count.
//
// Limits: a dial timeout (3 s), a first-chunk timeout (10 min: model load
// and prompt evaluation come before it) and an idle timeout between chunks
// (2 min), all configurable; no overall timeout, so a long healthy
// generation is never cut. The generation limit (num_predict) is enforced
// on the client side too: a server that streams past it is cut off, the
// stream closed, and the Response says DoneReason "length" and
// CutByClient. Nothing is retried: a failure is reported once, typed
// (llm.UnreachableError, llm.ModelNotFoundError, llm.WrongServerError when
// the address answers 404 and is not Ollama, naming the server that is
// there, llm.ServerError). A judge request whose format the server refuses
// (HTTP 400) is asked again with format "json", then without a format, the
// reply then checked against the schema (package structured). A stream
// that ends without its final "done" chunk is an llm.ServerError and the
// Response still holds the text received until then, with OutputTokens
// counted from the chunks received.
//
// A password in the URL (http://user:password@host) is used for the
// requests and never appears in an error message.
//
// For the judge to keep its own prompt cache apart from the reasoning steps,
// run the server with OLLAMA_NUM_PARALLEL=2 or more.
package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/structured"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

const backend = "ollama"

// DefaultNumCtx is sent when a request leaves Options.NumCtx at zero, so that
// Ollama's small default context never silently truncates a prompt.
const DefaultNumCtx = 16384

// Client talks to one Ollama server about one model. It is safe for
// concurrent use.
type Client struct {
	base     *url.URL
	addr     string // base with the password redacted, for messages
	model    string
	api      *api.Client
	http     *http.Client
	timeouts transport.Timeouts

	mu       sync.Mutex
	modelCtx int // the model's context length (/api/show), 0 when unknown
}

// Option configures a Client's timeouts: llm.WithFirstByteTimeout,
// llm.WithIdleTimeout, llm.WithCheckTimeout.
type Option = llm.Option

// New returns a client for the server at baseURL ("http://host:port", or a
// bare "host[:port]" as OLLAMA_HOST allows; the default port is 11434). It
// does not contact the server: call Check for that.
func New(baseURL, model string, opts ...Option) (*Client, error) {
	ep, err := transport.Open(backend, baseURL, llm.BackendOf(backend).DefaultPort, opts)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(model) == "" {
		return nil, errors.New("ollama: no model given — pass --model NAME (see `ollama list`)")
	}
	return &Client{
		base:     ep.Base,
		addr:     ep.Addr,
		model:    model,
		api:      api.NewClient(ep.Base, ep.HTTP),
		http:     ep.HTTP,
		timeouts: ep.Timeouts,
	}, nil
}

// Model is the model name requests are sent for.
func (c *Client) Model() string { return c.model }

// URL is the server address in use, without its password.
func (c *Client) URL() string { return c.addr }

// Generate runs one streaming chat request. onToken (may be nil) receives
// each text delta as it arrives.
func (c *Client) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	if len(req.Schema) == 0 {
		return c.generate(ctx, req, structured.None, onToken)
	}
	return structured.Generate(c.addr+"\x00"+c.model, req.Schema, func(f structured.Format) (llm.Response, error) {
		return c.generate(ctx, req, f, onToken)
	})
}

// generate runs one streaming chat request asking for structured output
// as f says: format = the schema, format = "json", or no format.
func (c *Client) generate(ctx context.Context, req llm.Request, f structured.Format, onToken llm.TokenFunc) (llm.Response, error) {
	start := time.Now()
	stream, truncate := true, false
	chat := &api.ChatRequest{
		Model:    c.model,
		Messages: []api.Message{{Role: "user", Content: req.Prompt}},
		Stream:   &stream,
		Options:  requestOptions(req),
		// Refuse a prompt over the context instead of cutting its start.
		Truncate: &truncate,
	}
	if len(req.Schema) > 0 {
		switch f {
		case structured.Schema:
			chat.Format = req.Schema
		case structured.Object:
			chat.Format = json.RawMessage(`"json"`)
		}
	}

	wctx, wd := transport.Watch(ctx, c.timeouts.FirstByte, c.timeouts.Idle)
	defer wd.Stop()

	var text strings.Builder
	var final *api.ChatResponse
	limit := transport.NewOutputLimit(req.Options.NumPredict)
	err := c.api.Chat(wctx, chat, func(chunk api.ChatResponse) error {
		wd.Tick()
		if d := chunk.Message.Content; d != "" {
			d = limit.Add(d)
			text.WriteString(d)
			if onToken != nil && d != "" {
				onToken(d)
			}
			if limit.Over() {
				return errCut // stops reading; the api package closes the body
			}
		}
		if chunk.Done {
			final = &chunk
		}
		return nil
	})

	resp := llm.Response{Text: text.String(), Model: c.model, Duration: time.Since(start), OutputTokens: limit.Chunks()}
	if final != nil {
		fillCounts(&resp, final)
	}
	if errors.Is(err, errCut) {
		resp.DoneReason, resp.CutByClient = llm.DoneLength, true
		return resp, nil
	}
	nCtx := c.requestContext(req)
	if err != nil {
		return resp, c.refusal(c.mapError(ctx, wd, err), nCtx)
	}
	if final == nil {
		return resp, &llm.ServerError{Backend: backend, Message: "the stream ended before the model finished (no final chunk) — the server or its model runner may have crashed"}
	}
	// An Ollama older than "truncate" cuts a prompt longer than the
	// request's context from its start instead of refusing it; only the
	// count it reports shows it.
	return resp, llm.CheckCut(backend, req.Prompt, resp, nCtx, llm.CutsLikeOllama, c.contextFix(nCtx))
}

// requestContext is the context Ollama runs a request with: the num_ctx
// sent, capped by the model's own context length (/api/show).
func (c *Client) requestContext(req llm.Request) int {
	n := req.Options.NumCtx
	if n <= 0 {
		n = DefaultNumCtx
	}
	if m := c.ContextCap(); m > 0 && m < n {
		n = m
	}
	return n
}

// ContextCap is the model's own context length as /api/show's model_info
// gives it (Ollama runs no request with more); 0 before Check or when the
// server does not say.
func (c *Client) ContextCap() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.modelCtx
}

// noteShow remembers the model's context length from an /api/show answer.
func (c *Client) noteShow(show *api.ShowResponse) {
	if show == nil {
		return
	}
	n := 0
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if f, ok := v.(float64); ok && f > 0 {
				n = int(f)
			}
		}
	}
	c.mu.Lock()
	c.modelCtx = n
	c.mu.Unlock()
}

// errCut ends a stream that went past its generation limit.
var errCut = errors.New("generation limit reached")

// requestOptions builds the "options" object. num_ctx, temperature and top_p
// are always present.
func requestOptions(req llm.Request) map[string]any {
	o := req.Options
	numCtx := o.NumCtx
	if numCtx <= 0 {
		numCtx = DefaultNumCtx
	}
	opts := map[string]any{
		"num_ctx":     numCtx,
		"temperature": o.Temperature,
		"top_p":       o.TopP,
	}
	if len(req.Stop) > 0 {
		opts["stop"] = append([]string(nil), req.Stop...)
	}
	if o.Seed != nil {
		opts["seed"] = *o.Seed
	}
	if o.NumPredict != 0 {
		opts["num_predict"] = o.NumPredict
	}
	return opts
}

func fillCounts(resp *llm.Response, final *api.ChatResponse) {
	if final.Model != "" {
		resp.Model = final.Model
	}
	resp.PromptTokens = final.PromptEvalCount
	if final.PromptEvalCachedCount != nil {
		resp.CachedPromptTokens = *final.PromptEvalCachedCount
	}
	if final.EvalCount > 0 {
		resp.OutputTokens = final.EvalCount
	}
	resp.DoneReason = final.DoneReason
}

// mapError turns what the api package returned into the llm error types.
func (c *Client) mapError(parent context.Context, wd *transport.Watchdog, err error) error {
	var status api.StatusError
	if errors.As(err, &status) {
		if status.StatusCode == http.StatusNotFound || status.StatusCode == http.StatusMethodNotAllowed {
			return c.notFound(parent, status.StatusCode)
		}
		return c.statusError(status.StatusCode, status.ErrorMessage)
	}
	var auth api.AuthorizationError
	if errors.As(err, &auth) {
		return &llm.ServerError{Backend: backend, Status: auth.StatusCode, Message: "unauthorized — this server needs a signed-in Ollama client"}
	}
	if transport.IsTransportError(err) || parent.Err() != nil || wd != nil && wd.Stalled() != nil {
		return transport.Classify(parent, backend, c.addr, wd, err)
	}
	// The api package turns an {"error": "..."} line inside a 200 stream into
	// a plain error carrying the server's message.
	return &llm.ServerError{Backend: backend, Message: err.Error()}
}

func (c *Client) statusError(code int, msg string) error {
	if msg == "" {
		msg = http.StatusText(code)
	}
	return &llm.ServerError{Backend: backend, Status: code, Message: msg}
}

// Check answers quickly whether the server is reachable and has the model:
// nil, *llm.UnreachableError or *llm.ModelNotFoundError (or a
// *llm.ServerError for anything else).
func (c *Client) Check(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, c.timeouts.Check)
	defer cancel()
	show, err := c.api.Show(cctx, &api.ShowRequest{Model: c.model})
	if err == nil {
		c.noteShow(show)
		return nil
	}
	return c.checkError(ctx, cctx, err)
}

// checkError maps a failed Check or Digest; a deadline of the check's own
// timeout (not the caller's) means the server did not answer in time.
func (c *Client) checkError(parent, cctx context.Context, err error) error {
	if err := transport.CheckError(parent, cctx, backend, c.addr, c.timeouts.Check, err); err == nil || errors.Is(err, llm.ErrTimeout) || errors.Is(err, llm.ErrUnreachable) {
		return err
	}
	return c.mapError(parent, nil, err)
}

// Digest returns the digest of the model as /api/tags lists it, for the
// manifest of a reproducible session.
func (c *Client) Digest(ctx context.Context) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, c.timeouts.Check)
	defer cancel()
	list, err := c.api.List(cctx)
	if err != nil {
		return "", c.checkError(ctx, cctx, err)
	}
	want := canonicalName(c.model)
	for _, m := range list.Models {
		if canonicalName(m.Name) == want || canonicalName(m.Model) == want {
			return m.Digest, nil
		}
	}
	return "", &llm.ModelNotFoundError{Backend: backend, Model: c.model, Served: modelNames(list), Listed: true}
}

// modelNames are the names of the models a tags list holds.
func modelNames(list *api.ListResponse) []string {
	names := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	return names
}

// missingModel is the error for a model the server does not have, naming
// the models it has (GET /api/tags) when it says.
func (c *Client) missingModel(ctx context.Context) error {
	e := &llm.ModelNotFoundError{Backend: backend, Model: c.model}
	if list, err := c.api.List(ctx); err == nil {
		e.Served, e.Listed = modelNames(list), true
	}
	return e
}

// notFound tells a missing model from a server that is not Ollama at all
// (any HTTP server answers 404 to /api/chat): Ollama answers GET
// /api/version with {"version": …}.
func (c *Client) notFound(parent context.Context, code int) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), min(c.timeouts.Check, 5*time.Second))
	defer cancel()
	evidence := fmt.Sprintf("it answered HTTP %d", code)
	var v struct {
		Version *string `json:"version"`
	}
	status, err := c.getJSON(ctx, "/api/version", &v)
	switch {
	case err == nil && status == http.StatusOK && v.Version != nil:
		return c.missingModel(ctx)
	case err != nil:
		evidence += ", and GET /api/version failed"
	case status != http.StatusOK:
		evidence += fmt.Sprintf(", and HTTP %d to GET /api/version", status)
	default:
		evidence += ", and GET /api/version did not give a version"
	}
	looks := transport.Identify(ctx, c.http, c.base, llm.Auth{})
	if looks == backend {
		looks = ""
	}
	return &llm.WrongServerError{Backend: backend, Addr: c.addr, Evidence: evidence, Looks: looks}
}

// getJSON GETs a path of the server and decodes a JSON answer into out
// (left alone when the answer is not JSON).
func (c *Client) getJSON(ctx context.Context, p string, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.JoinPath(p).String(), nil)
	if err != nil {
		return 0, err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return res.StatusCode, err
	}
	_ = json.Unmarshal(body, out)
	return res.StatusCode, nil
}

// canonicalName adds Ollama's implicit ":latest" tag, so "qwen3" and
// "qwen3:latest" name the same model.
func canonicalName(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return n
	}
	last := n[strings.LastIndex(n, "/")+1:]
	if !strings.Contains(last, ":") {
		n += ":latest"
	}
	return n
}

// ContextHint says how to give this server's prompts more room.
func (c *Client) ContextHint() string { return llm.BackendOf(backend).ContextHint }
