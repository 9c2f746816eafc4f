package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/prefrag/prefrag/llm"
)

// Ollama's OpenAI-compatible /v1 takes no num_ctx and its model list gives
// no context length: a request runs with the runner's context, which is
// OLLAMA_CONTEXT_LENGTH on the server (Ollama's default without it). When
// GET /models says nothing of the context and the server is Ollama (GET
// /api/version answers), the context is the one GET /api/ps shows for a
// loaded runner of the model, else llm.OllamaV1Context; /api/show's
// model_info context_length caps either.

// ollamaContext learns the context of an Ollama server behind /v1; ok is
// false when the server is not Ollama.
func (c *Client) ollamaContext(ctx context.Context, model string) (n int, ok bool) {
	var v struct {
		Version *string `json:"version"`
	}
	if !c.rootJSON(ctx, http.MethodGet, "/api/version", nil, &v) || v.Version == nil {
		return 0, false
	}
	n = llm.OllamaV1Context
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if c.rootJSON(ctx, http.MethodGet, "/api/ps", nil, &ps) {
		for _, m := range ps.Models {
			if (sameModel(m.Name, model) || sameModel(m.Model, model)) && m.ContextLength > 0 {
				n = m.ContextLength
			}
		}
	}
	var show struct {
		ModelInfo map[string]any `json:"model_info"`
	}
	if c.rootJSON(ctx, http.MethodPost, "/api/show", map[string]string{"model": model}, &show) {
		for k, val := range show.ModelInfo {
			if f, isNum := val.(float64); isNum && f > 0 && strings.HasSuffix(k, ".context_length") {
				n = min(n, int(f))
			}
		}
	}
	return n, true
}

// rootJSON asks the server's root (the API root without /v1) and decodes a
// 200 JSON answer into out; false on anything else.
func (c *Client) rootJSON(ctx context.Context, method, p string, body, out any) bool {
	root := *c.base
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
	res, err := c.http.Do(req)
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

// ContextHint says how to give this server's prompts more room (Ollama's
// /v1: its OLLAMA_CONTEXT_LENGTH).
func (c *Client) ContextHint() string { return c.cutFix() }

// cutFix says what to change when the server cut a prompt.
func (c *Client) cutFix() string {
	c.mu.Lock()
	ollama := c.ollama
	c.mu.Unlock()
	if ollama {
		return "Ollama's /v1 takes no num_ctx: start Ollama with a larger OLLAMA_CONTEXT_LENGTH, or use --llm ollama (its native API, which sends --num-ctx), or lower -k and --max-steps"
	}
	return llm.BackendOf(backend).ContextHint
}
