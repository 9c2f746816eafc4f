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
	body := c.chatBody(req, f, slot)
	rd := chatReader{resp: llm.Response{Model: c.Model()}, limit: transport.NewOutputLimit(req.Options.NumPredict), onToken: onToken}
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
		return rd.add(chunk), nil
	})
	resp := rd.resp
	resp.Text = rd.text.String()
	if resp.OutputTokens == 0 {
		resp.OutputTokens = rd.limit.Chunks()
	}
	return ended(resp, err, rd.limit, rd.finished)
}

// chatBody is the request of a chat completion: the sampling settings, the
// prompt as one user message, the output limit and the structured format.
func (c *Client) chatBody(req llm.Request, f structured.Format, slot int) map[string]any {
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
	return body
}

// chatReader gathers a chat completion stream's chunks into a response.
type chatReader struct {
	resp     llm.Response
	text     strings.Builder
	finished bool
	limit    *transport.OutputLimit
	onToken  llm.TokenFunc
}

// add reads one chunk: its text (up to the output limit), finish reason
// and counts. It reports whether reading stops here.
func (rd *chatReader) add(chunk chatEvent) (done bool) {
	if chunk.Model != "" {
		rd.resp.Model = chunk.Model
	}
	for _, ch := range chunk.Choices {
		if d := ch.Delta.Content; d != nil && *d != "" {
			kept := rd.limit.Add(*d)
			rd.text.WriteString(kept)
			if rd.onToken != nil && kept != "" {
				rd.onToken(kept)
			}
			if rd.limit.Over() {
				return true // stop reading: the stream is closed on return
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			rd.finished = true
			rd.resp.DoneReason = *ch.FinishReason
		}
	}
	rd.count(chunk)
	return false
}

// count takes the token counts of a chunk: its usage, else llama-server's
// timings.
func (rd *chatReader) count(chunk chatEvent) {
	resp := &rd.resp
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
}
