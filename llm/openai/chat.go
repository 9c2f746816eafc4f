package openai

import (
	"context"
	"errors"
	"strings"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/sse"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// chat streams one POST /chat/completions. A server that refuses it
// because the prompt plus max_tokens passes the context (vLLM checks
// both before generating) while the prompt alone fits is asked once more
// with max_tokens lowered to the room left, so the reply may stop on the
// limit as on llama.cpp and Ollama instead of failing the run.
func (c *Client) chat(ctx context.Context, req llm.Request, model string, f format, onToken llm.TokenFunc) (llm.Response, error) {
	resp, err := c.chatOnce(ctx, req, model, f, onToken)
	var ce *llm.ContextExceededError
	if !errors.As(err, &ce) || ce.NCtx <= 0 || ce.PromptTokens <= 0 {
		return resp, err
	}
	room := ce.NCtx - ce.PromptTokens
	if room < minRoom || room >= c.maxTokens(req) {
		return resp, err
	}
	req.Options.NumPredict = room
	return c.chatOnce(ctx, req, model, f, onToken)
}

// minRoom is the fewest output tokens worth asking for after a context
// refusal.
const minRoom = 16

// chatOnce streams one POST /chat/completions.
func (c *Client) chatOnce(ctx context.Context, req llm.Request, model string, f format, onToken llm.TokenFunc) (llm.Response, error) {
	body := c.body(req, model, f)
	resp := llm.Response{Model: model}
	var text strings.Builder
	finished, stopped, usage := false, false, false
	limit := transport.NewOutputLimit(c.maxTokens(req))
	cut := newStopCutter(req.Stop)
	emit := func(d string) {
		if d == "" {
			return
		}
		text.WriteString(d)
		if onToken != nil {
			onToken(d)
		}
	}
	err := c.stream(ctx, "/chat/completions", body, func(ev sse.Line) (bool, error) {
		if ev.Field == "error" {
			return true, c.streamError(ev.Value)
		}
		if sse.IsDone(ev.Value) {
			return true, nil
		}
		chunk, err := sse.ParseChatChunk(ev.Value)
		if err != nil {
			return true, &llm.ServerError{Backend: backend, Message: err.Error()}
		}
		if chunk.HasError() {
			raw := chunk.Error
			if chunk.Object == "error" {
				raw = ev.Value
			}
			return true, c.streamError(raw)
		}
		if chunk.Model != "" {
			resp.Model = chunk.Model
		}
		for _, ch := range chunk.Choices {
			d := ch.Delta.Content
			if ch.Message != nil && ch.Message.Content != nil {
				d = ch.Message.Content // a server that answered without streaming
			}
			if d != nil && *d != "" {
				kept, hit := cut.Add(limit.Add(*d))
				emit(kept)
				if hit {
					stopped = true
					return true, nil // stop reading: the stream is closed on return
				}
				if limit.Over() {
					return true, nil
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finished = true
				resp.DoneReason = doneReason(*ch.FinishReason)
			}
		}
		if u := chunk.Usage; u != nil {
			resp.PromptTokens, resp.OutputTokens = u.PromptTokens, u.CompletionTokens
			resp.CachedPromptTokens = u.Cached()
			usage = true
		}
		// Finished and counted: nothing more is needed, "[DONE]" or not.
		return finished && usage, nil
	})
	if !stopped {
		emit(cut.Flush())
	}
	resp.Text = text.String()
	if resp.OutputTokens == 0 {
		resp.OutputTokens = limit.Chunks()
	}
	if err != nil {
		return resp, err
	}
	switch {
	case stopped:
		resp.DoneReason = "stop"
		return resp, nil
	case limit.Over():
		resp.DoneReason, resp.CutByClient = llm.DoneLength, true
		return resp, nil
	case !finished:
		return resp, &llm.ServerError{Backend: backend, Message: "the stream ended before the model finished (no finish_reason) — the server may have crashed"}
	}
	return resp, nil
}

// doneReason maps finish_reason onto the llm vocabulary: "length" is
// llm.DoneLength, everything else is kept as the server said it.
func doneReason(fr string) string {
	if fr == "length" || fr == "max_tokens" {
		return llm.DoneLength
	}
	return fr
}

// stopCutter ends a streamed reply at the first stop sequence, whether or
// not the server honoured it. It holds back a tail that could be the start
// of a stop sequence, so no emitted delta contains part of one.
type stopCutter struct {
	stops   []string
	longest int
	all     strings.Builder
	emitted int
	hit     bool
}

func newStopCutter(stops []string) *stopCutter {
	c := &stopCutter{stops: nonEmpty(stops)}
	for _, s := range c.stops {
		c.longest = max(c.longest, len(s))
	}
	return c
}

// Add appends a delta and returns what may be emitted now; hit reports
// that a stop sequence was found (the returned text ends before it).
func (c *stopCutter) Add(delta string) (string, bool) {
	if c.hit {
		return "", true
	}
	if len(c.stops) == 0 {
		return delta, false
	}
	from := max(0, c.all.Len()-c.longest+1)
	c.all.WriteString(delta)
	all := c.all.String()
	cutAt := -1
	for _, s := range c.stops {
		if i := strings.Index(all[from:], s); i >= 0 && (cutAt < 0 || from+i < cutAt) {
			cutAt = from + i
		}
	}
	if cutAt >= 0 {
		c.hit = true
		out := ""
		if cutAt > c.emitted {
			out = all[c.emitted:cutAt]
		}
		c.emitted = max(c.emitted, cutAt)
		return out, true
	}
	safe := len(all) - c.partialTail(all)
	if safe <= c.emitted {
		return "", false
	}
	out := all[c.emitted:safe]
	c.emitted = safe
	return out, false
}

// partialTail is the length of the longest suffix of s that is a proper
// prefix of a stop sequence.
func (c *stopCutter) partialTail(s string) int {
	best := 0
	for _, st := range c.stops {
		for n := min(len(st)-1, len(s)); n > best; n-- {
			if strings.HasSuffix(s, st[:n]) {
				best = n
				break
			}
		}
	}
	return best
}

// Flush returns the held-back tail at the end of the stream.
func (c *stopCutter) Flush() string {
	if c.hit || len(c.stops) == 0 {
		return ""
	}
	all := c.all.String()
	out := all[c.emitted:]
	c.emitted = len(all)
	return out
}
