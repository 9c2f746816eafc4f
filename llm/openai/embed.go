package openai

import (
	"context"
	"net/http"
	"strings"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/oaiembed"
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
	return oaiembed.Post(ctx, &c.ep, "/embeddings", model, texts, func(status int, raw []byte) error { return c.embedError(status, model, raw) })
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
		return &llm.CannotEmbedError{Backend: backend, Addr: c.ep.Addr, Model: model, Said: e.Message, Status: status, Reason: "model"}
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
	return &llm.ServerError{Backend: backend, Status: status, Type: e.Type, Message: c.advice(status, e.Text())}
}
