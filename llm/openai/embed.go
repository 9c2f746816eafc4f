package openai

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/oaiembed"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// Embed embeds texts with one POST {root}/embeddings (every text in
// "input", encoding_format "float"). With no model given, the one model the
// server lists is used. A model the server does not serve is an
// *llm.ModelNotFoundError; a served model that is not an embedding model
// (vLLM: "… does not support Embeddings API") is an *llm.CannotEmbedError
// saying to serve an embedding model.
func (c *Client) Embed(ctx context.Context, texts []string) (llm.Embedding, error) {
	model, err := c.ensureModel(ctx)
	if err != nil {
		return llm.Embedding{}, err
	}
	if len(texts) == 0 {
		return llm.Embedding{Model: model}, nil
	}
	wctx, wd := transport.Watch(ctx, c.timeouts.FirstByte, 0)
	defer wd.Stop()
	res, err := c.send(wctx, http.MethodPost, "/embeddings", oaiembed.Request(model, texts), "application/json")
	if err != nil {
		return llm.Embedding{}, transport.Classify(ctx, backend, c.addr, wd, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
	if err != nil {
		return llm.Embedding{}, transport.Classify(ctx, backend, c.addr, wd, err)
	}
	if res.StatusCode >= 400 {
		return llm.Embedding{}, c.embedError(res.StatusCode, model, raw)
	}
	a, err := oaiembed.Decode(raw)
	if err != nil {
		return llm.Embedding{}, &llm.ServerError{Backend: backend, Status: res.StatusCode, Message: err.Error()}
	}
	if a.Model == "" {
		a.Model = model
	}
	return llm.Embedding{Vectors: a.Vectors, Model: a.Model, PromptTokens: a.PromptTokens}, nil
}

// Backend names the backend in messages.
func (c *Client) Backend() string { return backend }

// embedError maps an error answer of /embeddings.
func (c *Client) embedError(status int, model string, raw []byte) error {
	e := parseErrorBody(raw)
	e.Message = c.redact(e.Message)
	msg := strings.ToLower(e.Message)
	switch {
	case strings.Contains(msg, "embedding") && (strings.Contains(msg, "not support") || strings.Contains(msg, "not an embedding")):
		return &llm.CannotEmbedError{Backend: backend, Addr: c.addr, Model: model, Said: e.Message, Status: status, Reason: "model"}
	case status == http.StatusNotFound && e.namesModel():
		c.mu.Lock()
		served := append([]string(nil), c.served...)
		c.mu.Unlock()
		return &llm.ModelNotFoundError{Backend: backend, Model: model, Served: served}
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		return &llm.ServerError{Backend: backend, Status: status, Message: "the server has no POST " + c.pathOf("/embeddings") + " — it serves no embeddings API"}
	}
	if ce := e.contextExceeded(status); ce != nil {
		return ce
	}
	return &llm.ServerError{Backend: backend, Status: status, Type: e.Type, Message: c.advice(status, e.text())}
}
