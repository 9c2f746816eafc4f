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
	rd := chatReader{resp: llm.Response{Model: model}, limit: transport.NewOutputLimit(c.maxTokens(req)),
		cut: newStopCutter(req.Stop), onToken: onToken}
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
		return rd.add(chunk), nil
	})
	if !rd.stopped {
		rd.emit(rd.cut.Flush())
	}
	resp := rd.resp
	resp.Text = rd.text.String()
	if resp.OutputTokens == 0 {
		resp.OutputTokens = rd.limit.Chunks()
	}
	if err != nil {
		return resp, err
	}
	switch {
	case rd.stopped:
		resp.DoneReason = "stop"
		return resp, nil
	case rd.limit.Over():
		resp.DoneReason, resp.CutByClient = llm.DoneLength, true
		return resp, nil
	case !rd.finished:
		return resp, &llm.ServerError{Backend: backend, Message: "the stream ended before the model finished (no finish_reason) — the server may have crashed"}
	}
	return resp, nil
}

// chatReader gathers a chat completion stream's chunks into a response,
// cut at the output limit and at the first stop sequence.
type chatReader struct {
	resp llm.Response
	text strings.Builder
	// finished: a finish_reason came; stopped: a stop sequence cut the
	// reply; usage: the counts came.
	finished, stopped, usage bool
	limit                    *transport.OutputLimit
	cut                      *stopCutter
	onToken                  llm.TokenFunc
}

// emit keeps a delta of the reply and streams it.
func (rd *chatReader) emit(d string) {
	if d == "" {
		return
	}
	rd.text.WriteString(d)
	if rd.onToken != nil {
		rd.onToken(d)
	}
}

// add reads one chunk: its text (a streamed delta, or the message of a
// server that answered without streaming), finish reason and counts. It
// reports whether reading stops here.
func (rd *chatReader) add(chunk sse.ChatChunk) (done bool) {
	if chunk.Model != "" {
		rd.resp.Model = chunk.Model
	}
	for _, ch := range chunk.Choices {
		d := ch.Delta.Content
		if ch.Message != nil && ch.Message.Content != nil {
			d = ch.Message.Content // a server that answered without streaming
		}
		if d != nil && *d != "" {
			kept, hit := rd.cut.Add(rd.limit.Add(*d))
			rd.emit(kept)
			if hit {
				rd.stopped = true
				return true // stop reading: the stream is closed on return
			}
			if rd.limit.Over() {
				return true
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			rd.finished = true
			rd.resp.DoneReason = doneReason(*ch.FinishReason)
		}
	}
	if u := chunk.Usage; u != nil {
		rd.resp.PromptTokens, rd.resp.OutputTokens = u.PromptTokens, u.CompletionTokens
		rd.resp.CachedPromptTokens = u.Cached()
		rd.usage = true
	}
	// Finished and counted: nothing more is needed, "[DONE]" or not.
	return rd.finished && rd.usage
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
