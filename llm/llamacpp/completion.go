package llamacpp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/prefrag/prefrag/llm"
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
func (c *Client) complete(ctx context.Context, req llm.Request, prompt string, slot int, onToken llm.TokenFunc) (llm.Response, error) {
	body := c.sampling(req, slot)
	body["prompt"] = prompt
	body["n_predict"] = -1
	if req.Options.NumPredict > 0 {
		body["n_predict"] = req.Options.NumPredict
	}
	if len(req.Schema) > 0 {
		body["json_schema"] = json.RawMessage(req.Schema)
	}
	resp := llm.Response{Model: c.Model()}
	var text strings.Builder
	finished := false
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
		if chunk.Content != "" {
			text.WriteString(chunk.Content)
			if onToken != nil {
				onToken(chunk.Content)
			}
		}
		if chunk.Stop {
			finished = true
			fillCompletionCounts(&resp, chunk)
			return true, nil
		}
		return false, nil
	})
	resp.Text = text.String()
	if err != nil {
		return resp, err
	}
	if !finished {
		return resp, errEndedEarly()
	}
	return resp, nil
}

func errEndedEarly() error {
	return &llm.ServerError{Backend: backend, Message: "the stream ended before the model finished (no final event) — the server may have crashed"}
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
