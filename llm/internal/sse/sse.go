// Package sse reads the server-sent event streams of the HTTP backends
// (llama-server's /completion and every OpenAI-compatible
// /v1/chat/completions) and decodes the OpenAI chat-completion chunk both
// llm/llamacpp and llm/openai receive.
package sse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// MaxEventSize bounds one server-sent event line. The final /completion
// event echoes the whole prompt, so it must hold a full context window.
const MaxEventSize = 64 << 20

// Line is one parsed line of an event stream.
type Line struct {
	Field string // "data", "error", "event", …; empty for blank and comment lines
	Value []byte
}

// ParseLine splits "field: value" (one optional space after the colon,
// per the SSE specification). Blank lines and ":" comments give an empty
// Field; a line without a colon is a field with an empty value.
func ParseLine(line []byte) Line {
	line = bytes.TrimRight(line, "\r")
	if len(line) == 0 || line[0] == ':' {
		return Line{}
	}
	field, value, found := bytes.Cut(line, []byte(":"))
	if !found {
		return Line{Field: string(field)}
	}
	value = bytes.TrimPrefix(value, []byte(" "))
	return Line{Field: string(field), Value: value}
}

// ReadEvents calls fn for every "data" and "error" line of an event
// stream, in order, until the stream ends, fn returns an error or fn
// returns done. The servers write each event as one line.
func ReadEvents(r io.Reader, fn func(ev Line) (done bool, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxEventSize)
	for sc.Scan() {
		ev := ParseLine(sc.Bytes())
		if ev.Field != "data" && ev.Field != "error" {
			continue
		}
		done, err := fn(ev)
		if err != nil || done {
			return err
		}
	}
	return sc.Err()
}

// IsDone reports whether a data value is the stream's "[DONE]" marker.
func IsDone(value []byte) bool { return string(bytes.TrimSpace(value)) == "[DONE]" }

// Timings is llama-server's "timings" object (final events only).
type Timings struct {
	CacheN     *int `json:"cache_n"`
	PromptN    int  `json:"prompt_n"`
	PredictedN int  `json:"predicted_n"`
}

// Usage is an OpenAI "usage" object.
type Usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// Cached is the cached prompt tokens the usage reports (0 when absent).
func (u *Usage) Cached() int {
	if u == nil || u.PromptTokensDetails == nil {
		return 0
	}
	return u.PromptTokensDetails.CachedTokens
}

// ChatChunk is one /v1/chat/completions stream chunk (or, with Message
// set, a whole non-streamed answer).
type ChatChunk struct {
	// Object is "chat.completion.chunk", or "error" for vLLM's in-stream
	// error object ({"object":"error","message":…}).
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content *string `json:"content"`
		} `json:"delta"`
		Message *struct {
			Content *string `json:"content"`
		} `json:"message,omitempty"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage   *Usage          `json:"usage"`
	Timings *Timings        `json:"timings"`
	Error   json.RawMessage `json:"error"`
}

// ParseChatChunk decodes one "data" value of a chat completion stream.
func ParseChatChunk(data []byte) (ChatChunk, error) {
	var ev ChatChunk
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, fmt.Errorf("unreadable stream event: %w", err)
	}
	return ev, nil
}

// HasError reports whether the chunk carries an error object.
func (c ChatChunk) HasError() bool {
	return len(c.Error) > 0 && string(c.Error) != "null" || c.Object == "error"
}
