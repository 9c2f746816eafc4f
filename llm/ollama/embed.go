package ollama

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// Embed embeds texts with one POST /api/embed (a batch "input"), through
// the api package. Ollama cuts a text longer than the model's context
// itself (truncate defaults to true) and scales every vector to unit
// length. A chat model has no embedding head: Ollama 0.34 loads it, then
// answers HTTP 501 "This server does not support embeddings. Start it with
// `--embeddings`" (the message of the llama-server it runs inside), which
// is an *llm.CannotEmbedError saying to pull an embedding model.
func (c *Client) Embed(ctx context.Context, texts []string) (llm.Embedding, error) {
	if len(texts) == 0 {
		return llm.Embedding{Model: c.model}, nil
	}
	wctx, wd := transport.Watch(ctx, c.timeouts.FirstByte, 0)
	defer wd.Stop()
	res, err := c.api.Embed(wctx, &api.EmbedRequest{Model: c.model, Input: texts})
	if err != nil {
		return llm.Embedding{}, c.embedError(ctx, wd, err)
	}
	return llm.Embedding{Vectors: res.Embeddings, Model: c.model, PromptTokens: res.PromptEvalCount}, nil
}

// Backend names the backend in messages.
func (c *Client) Backend() string { return backend }

// embedError maps a failed /api/embed.
func (c *Client) embedError(ctx context.Context, wd *transport.Watchdog, err error) error {
	var status api.StatusError
	if errors.As(err, &status) && cannotEmbed(status.StatusCode, status.ErrorMessage) {
		return &llm.CannotEmbedError{Backend: backend, Addr: c.addr, Model: c.model, Said: status.ErrorMessage, Status: status.StatusCode, Reason: "model"}
	}
	return c.mapError(ctx, wd, err)
}

// cannotEmbed recognises Ollama's refusals to embed with a model: the 501
// of a completion model, and the 400 "does not support embeddings" some
// versions answer.
func cannotEmbed(code int, msg string) bool {
	m := strings.ToLower(msg)
	return code == http.StatusNotImplemented || strings.Contains(m, "support embeddings") || strings.Contains(m, "--embeddings")
}
