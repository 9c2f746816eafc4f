package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/prefrag/prefrag/llm"
)

// Ollama's OpenAI-compatible /v1 takes no num_ctx and its model list gives
// no context length: a /v1 request runs with the server's default context
// (OLLAMA_CONTEXT_LENGTH, else llm.OllamaV1Context), and reloads a runner
// that a native request loaded with another num_ctx. So the context of a
// /v1 request is, until one has run, the smaller of Ollama's default and
// what GET /api/ps shows for a loaded runner of the model (conservative:
// prefrag cannot read OLLAMA_CONTEXT_LENGTH); after each request it is
// read again from /api/ps, which then shows the runner that served it —
// the context the request really ran with, which the cut check and every
// message use. /api/show's model_info context_length caps it.

// ollamaContext learns the context of an Ollama server behind /v1; ok is
// false when the server is not Ollama. ran says whether a /v1 request of
// this client has run (then /api/ps shows its runner).
func (c *Client) ollamaContext(ctx context.Context, model string, ran bool) (n int, ok bool) {
	var v struct {
		Version *string `json:"version"`
	}
	if !c.rootJSON(ctx, http.MethodGet, "/api/version", nil, &v) || v.Version == nil {
		return 0, false
	}
	var show struct {
		ModelInfo map[string]any `json:"model_info"`
	}
	modelCtx := 0
	if c.rootJSON(ctx, http.MethodPost, "/api/show", map[string]string{"model": model}, &show) {
		for k, val := range show.ModelInfo {
			if f, isNum := val.(float64); isNum && f > 0 && strings.HasSuffix(k, ".context_length") {
				modelCtx = int(f)
			}
		}
	}
	c.mu.Lock()
	c.modelCtx = modelCtx
	c.mu.Unlock()
	return c.v1Context(c.runnerContext(ctx, model), ran), true
}

// v1Context is the context of a /v1 request given the runner's (ps, 0 when
// none is loaded): the runner's once a /v1 request has run on it, before
// that at most Ollama's default; never more than the model's own.
func (c *Client) v1Context(ps int, ran bool) int {
	n := llm.OllamaV1Context
	if ps > 0 && (ran || ps < n) {
		n = ps
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.modelCtx > 0 {
		n = min(n, c.modelCtx)
	}
	return n
}

// runnerContext is the per-request context GET /api/ps shows for a loaded
// runner of model, 0 when none is loaded.
func (c *Client) runnerContext(ctx context.Context, model string) int {
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	n := 0
	if c.rootJSON(ctx, http.MethodGet, "/api/ps", nil, &ps) {
		for _, m := range ps.Models {
			if (sameModel(m.Name, model) || sameModel(m.Model, model)) && m.ContextLength > 0 {
				n = m.ContextLength
			}
		}
	}
	return n
}

// ranOnOllama re-reads, after a /v1 request on Ollama, the context of the
// runner that served it (GET /api/ps) and returns it: the context the
// request really ran with. Elsewhere it returns the context known.
func (c *Client) ranOnOllama(ctx context.Context, model string) int {
	c.mu.Lock()
	ollama, n := c.ollama, c.nCtx
	c.mu.Unlock()
	if !ollama {
		return n
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(c.ep.Timeouts.Check, 5*time.Second))
	defer cancel()
	if ps := c.runnerContext(cctx, model); ps > 0 {
		n = c.v1Context(ps, true)
	}
	c.mu.Lock()
	c.nCtx = n
	c.mu.Unlock()
	return n
}

// rootJSON asks the server's root (the API root without /v1) and decodes a
// 200 JSON answer into out; false on anything else.
func (c *Client) rootJSON(ctx context.Context, method, p string, body, out any) bool {
	root := *c.ep.Base
	root.Path, root.RawPath = "", ""
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return false
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, root.JoinPath(p).String(), rd)
	if err != nil {
		return false
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.ep.HTTP.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil || res.StatusCode != http.StatusOK {
		return false
	}
	return json.Unmarshal(raw, out) == nil
}

// isOllama reports whether the server is Ollama (its /v1).
func (c *Client) isOllama() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ollama
}

// ContextHint says how to give this server's prompts more room (Ollama's
// /v1: its OLLAMA_CONTEXT_LENGTH).
func (c *Client) ContextHint() string { return c.cutFix() }

// cutFix says what to change when the server cut a prompt.
func (c *Client) cutFix() string {
	if c.isOllama() {
		return "Ollama's /v1 takes no num_ctx: start Ollama with a larger OLLAMA_CONTEXT_LENGTH, or use --llm ollama (its native API, which sends --num-ctx), or lower -k and --max-steps"
	}
	return llm.BackendOf(backend).ContextHint
}

// howCut says how the server treats a prompt over its context: Ollama
// cuts it in its own way; a server that names its context (vLLM, SGLang:
// max_model_len) refuses it; another may cut it.
func (c *Client) howCut() (llm.HowCut, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.ollama:
		return llm.CutsLikeOllama, true
	case c.nCtx > 0:
		return 0, false
	}
	return llm.MayCut, true
}

// contextExceeded types an error answer that refuses a prompt over the
// context, naming the server and its setting (see apiError.refuser).
func (c *Client) contextExceeded(e apiError, status int) *llm.ContextExceededError {
	ce := e.contextExceeded(status)
	if ce != nil && c.isOllama() {
		ce.Server, ce.Hint = "Ollama", c.cutFix()
	}
	return ce
}
