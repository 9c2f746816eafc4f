package llamacpp

import (
	"context"
	"net/http"
	"strings"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/oaiembed"
)

// Embed embeds texts with one POST /v1/embeddings (every text in "input").
// llama-server embeds only when started with --embeddings and a model that
// pools its tokens; its refusals are *llm.CannotEmbedError with what to
// run:
//
//   - 501 "This server does not support embeddings. Start it with
//     `--embeddings`" (reason "server");
//   - 400 "Pooling type 'none' is not OAI compatible. Please use a
//     different pooling type" (a chat model, or --pooling none: "pooling");
//   - 500 "input is too large to process. increase the physical batch
//     size": a text longer than -ub tokens ("batch").
//
// Other failures are those of generation (unreachable, loading, 5xx).
func (c *Client) Embed(ctx context.Context, texts []string) (llm.Embedding, error) {
	// /props names the served model and its slots (once per client).
	if err := c.probe(ctx); err != nil {
		return llm.Embedding{}, err
	}
	model := c.Model()
	if len(texts) == 0 {
		return llm.Embedding{Model: model}, nil
	}
	return oaiembed.Post(ctx, &c.ep, "/v1/embeddings", model, texts, c.embedError)
}

// Backend names the backend in messages.
func (c *Client) Backend() string { return backend }

// Slots is the server's number of parallel slots (/props total_slots; 0
// before the first call or when it does not say).
func (c *Client) Slots() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.totalSlots
}

// embedError maps an error answer of /v1/embeddings.
func (c *Client) embedError(status int, raw []byte) error {
	e := parseErrorBody(raw)
	e.Message = c.ep.Auth.Redact(e.Message)
	msg := strings.ToLower(e.Message)
	reason := ""
	switch {
	case status == http.StatusNotImplemented || strings.Contains(msg, "does not support embeddings"):
		reason = "server"
	case strings.Contains(msg, "pooling type 'none'"):
		reason = "pooling"
	case strings.Contains(msg, "physical batch size"):
		reason = "batch"
	}
	if reason != "" {
		return &llm.CannotEmbedError{Backend: backend, Addr: c.ep.Addr, Model: c.Model(), Said: e.Message, Status: status, Reason: reason}
	}
	switch status {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return &llm.ServerError{Backend: backend, Status: status, Message: "the server has no POST /v1/embeddings — is this a llama.cpp server (a recent one)?"}
	case http.StatusServiceUnavailable:
		return &llm.LoadingError{Backend: backend, Addr: c.ep.Addr}
	}
	err := e.typed(status, "")
	if se, ok := err.(*llm.ServerError); ok && (status == http.StatusUnauthorized || status == http.StatusForbidden) {
		se.Message += c.keyAdvice()
	}
	return err
}
