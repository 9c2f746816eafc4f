package llamacpp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/structured"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// sampling returns the fields shared by both generation endpoints.
func (c *Client) sampling(req llm.Request, slot int) map[string]any {
	o := req.Options
	stop := req.Stop
	if stop == nil {
		stop = []string{}
	}
	body := map[string]any{
		"stream":       true,
		"cache_prompt": true,
		"temperature":  o.Temperature,
		"top_p":        o.TopP,
		"stop":         stop,
		"id_slot":      slot,
	}
	if o.Seed != nil {
		body["seed"] = *o.Seed
	}
	if m := c.Model(); m != "" {
		body["model"] = m
	}
	return body
}

// complete streams POST /completion.
func (c *Client) complete(ctx context.Context, req llm.Request, f structured.Format, prompt string, slot int, onToken llm.TokenFunc) (llm.Response, error) {
	body := c.sampling(req, slot)
	body["prompt"] = prompt
	body["n_predict"] = -1
	if req.Options.NumPredict > 0 {
		body["n_predict"] = req.Options.NumPredict
	}
	if len(req.Schema) > 0 {
		switch f {
		case structured.Schema:
			body["json_schema"] = json.RawMessage(req.Schema)
		case structured.Object:
			body["json_schema"] = json.RawMessage(`{"type":"object"}`)
		}
	}
	resp := llm.Response{Model: c.Model()}
	var text strings.Builder
	finished := false
	limit := transport.NewOutputLimit(req.Options.NumPredict)
	predicted := 0
	err := c.stream(ctx, "/completion", body, func(ev sseLine) (bool, error) {
		if ev.Field == "error" {
			return true, c.streamError(ev.Value)
		}
		chunk, err := parseCompletionEvent(ev.Value)
		if err != nil {
			return true, &llm.ServerError{Backend: backend, Message: err.Error()}
		}
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
			return true, c.streamError(chunk.Error)
		}
		if chunk.Stop {
			// The final event carries no new text on llama-server, but
			// an older one may: keep it within the limit.
			if d := limit.Add(chunk.Content); d != "" {
				text.WriteString(d)
				if onToken != nil {
					onToken(d)
				}
			}
			finished = true
			fillCompletionCounts(&resp, chunk)
			return true, nil
		}
		predicted = max(predicted, chunk.TokensPredicted)
		if chunk.Content != "" {
			d := limit.Add(chunk.Content)
			text.WriteString(d)
			if onToken != nil && d != "" {
				onToken(d)
			}
			if limit.Over() {
				return true, nil // stop reading: the stream is closed on return
			}
		}
		return false, nil
	})
	resp.Text = text.String()
	if !finished {
		// Tokens streamed before a crash, a cancel or a cut still count.
		resp.OutputTokens = max(predicted, limit.Chunks())
	}
	return ended(resp, err, limit, finished)
}

// ended is a generation's answer once its stream is over: err (a failure,
// resp holds what came), a reply cut at the output limit (DoneLength), a
// stream that stopped before the final event (the server crashed), or
// resp as the server finished it.
func ended(resp llm.Response, err error, limit *transport.OutputLimit, finished bool) (llm.Response, error) {
	switch {
	case err != nil:
		return resp, err
	case limit.Over():
		resp.DoneReason, resp.CutByClient = llm.DoneLength, true
		return resp, nil
	case !finished:
		return resp, &llm.ServerError{Backend: backend, Message: "the stream ended before the model finished (no final event) — the server may have crashed"}
	}
	return resp, nil
}

func fillCompletionCounts(resp *llm.Response, ev completionEvent) {
	if ev.Model != "" {
		resp.Model = ev.Model
	}
	resp.PromptTokens = ev.TokensEvaluated
	resp.OutputTokens = ev.TokensPredicted
	if t := ev.Timings; t != nil {
		if t.CacheN != nil {
			resp.CachedPromptTokens = *t.CacheN
		}
		if resp.PromptTokens == 0 {
			resp.PromptTokens = t.PromptN + resp.CachedPromptTokens
		}
		if resp.OutputTokens == 0 {
			resp.OutputTokens = t.PredictedN
		}
	}
	resp.DoneReason = ev.doneReason()
}
