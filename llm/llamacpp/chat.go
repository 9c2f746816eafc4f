package llamacpp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/structured"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// chat streams POST /v1/chat/completions (servers without /apply-template).
func (c *Client) chat(ctx context.Context, req llm.Request, f structured.Format, slot int, onToken llm.TokenFunc) (llm.Response, error) {
	body := c.sampling(req, slot)
	body["messages"] = []map[string]string{{"role": "user", "content": req.Prompt}}
	body["stream_options"] = map[string]bool{"include_usage": true}
	if req.Options.NumPredict > 0 {
		body["max_tokens"] = req.Options.NumPredict
	}
	if len(req.Schema) > 0 {
		switch f {
		case structured.Schema:
			body["response_format"] = map[string]any{
				"type":        "json_schema",
				"json_schema": map[string]any{"name": "response", "schema": json.RawMessage(req.Schema)},
			}
		case structured.Object:
			body["response_format"] = map[string]string{"type": "json_object"}
		}
	}
	resp := llm.Response{Model: c.Model()}
	var text strings.Builder
	finished := false
	limit := transport.NewOutputLimit(req.Options.NumPredict)
	err := c.stream(ctx, "/v1/chat/completions", body, func(ev sseLine) (bool, error) {
		if ev.Field == "error" {
			return true, c.streamError(ev.Value)
		}
		if string(bytes.TrimSpace(ev.Value)) == "[DONE]" {
			return true, nil
		}
		chunk, err := parseChatEvent(ev.Value)
		if err != nil {
			return true, &llm.ServerError{Backend: backend, Message: err.Error()}
		}
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
			return true, c.streamError(chunk.Error)
		}
		if chunk.Model != "" {
			resp.Model = chunk.Model
		}
		for _, ch := range chunk.Choices {
			if d := ch.Delta.Content; d != nil && *d != "" {
				kept := limit.Add(*d)
				text.WriteString(kept)
				if onToken != nil && kept != "" {
					onToken(kept)
				}
				if limit.Over() {
					return true, nil // stop reading: the stream is closed on return
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finished = true
				resp.DoneReason = *ch.FinishReason
			}
		}
		if u := chunk.Usage; u != nil {
			resp.PromptTokens, resp.OutputTokens = u.PromptTokens, u.CompletionTokens
			if u.PromptTokensDetails != nil {
				resp.CachedPromptTokens = u.PromptTokensDetails.CachedTokens
			}
		}
		if t := chunk.Timings; t != nil && t.CacheN != nil {
			resp.CachedPromptTokens = *t.CacheN
			if resp.PromptTokens == 0 {
				resp.PromptTokens = t.PromptN + *t.CacheN
			}
			if resp.OutputTokens == 0 {
				resp.OutputTokens = t.PredictedN
			}
		}
		return false, nil
	})
	resp.Text = text.String()
	if resp.OutputTokens == 0 {
		resp.OutputTokens = limit.Chunks()
	}
	return ended(resp, err, limit, finished)
}
