package llamacpp

import (
	"context"
	"net/http"

	"github.com/prefrag/prefrag/llm"
)

// CountTokens counts text in the served model's own tokens with
// llama-server's POST /tokenize ({"content": …} → {"tokens": […]}), so the
// engine can calibrate its estimate before the first prompt. It is bounded
// by the check timeout.
func (c *Client) CountTokens(ctx context.Context, text string) (int, error) {
	cctx, cancel := context.WithTimeout(ctx, c.ep.Timeouts.Check)
	defer cancel()
	var out struct {
		Tokens []any `json:"tokens"`
	}
	if err := c.ep.DoJSON(cctx, http.MethodPost, "/tokenize", map[string]any{"content": text, "add_special": true}, &out, 0); err != nil {
		return 0, err
	}
	return len(out.Tokens), nil
}

// ContextHint says how to give this server's prompts more room.
func (c *Client) ContextHint() string { return llm.BackendOf(backend).ContextHint }

// ContextPerSlot: the context that counts is one slot's (-c divided by
// -np).
func (c *Client) ContextPerSlot() bool { return true }
