package llamacpp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/prefrag/prefrag/llm"
)

// maxEventSize bounds one server-sent event line. The final /completion
// event echoes the whole prompt, so it must hold a full context window.
const maxEventSize = 64 << 20

// sseLine is one parsed line of an event stream.
type sseLine struct {
	Field string // "data", "error", "event", …; empty for blank and comment lines
	Value []byte
}

// parseSSELine splits "field: value" (one optional space after the colon,
// per the SSE specification). Blank lines and ":" comments give an empty
// Field; a line without a colon is a field with an empty value.
func parseSSELine(line []byte) sseLine {
	line = bytes.TrimRight(line, "\r")
	if len(line) == 0 || line[0] == ':' {
		return sseLine{}
	}
	field, value, found := bytes.Cut(line, []byte(":"))
	if !found {
		return sseLine{Field: string(field)}
	}
	value = bytes.TrimPrefix(value, []byte(" "))
	return sseLine{Field: string(field), Value: value}
}

// readEvents calls fn for every "data" and "error" line of an event
// stream, in order, until the stream ends, fn returns an error or fn
// returns done. llama-server writes each event as one line.
func readEvents(r io.Reader, fn func(ev sseLine) (done bool, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventSize)
	for sc.Scan() {
		ev := parseSSELine(sc.Bytes())
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

// apiError is llama-server's error object: {"code","message","type"}.
type apiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Type    string `json:"type"`
	// With type exceed_context_size_error.
	NPromptTokens int `json:"n_prompt_tokens"`
	NCtx          int `json:"n_ctx"`
}

// typed returns the llm error for a server error object with HTTP status
// (the object's own code when status is 0).
func (e apiError) typed(status int, prefix string) error {
	if status == 0 {
		status = e.Code
	}
	if e.Type == "exceed_context_size_error" {
		return &llm.ContextExceededError{Backend: backend, PromptTokens: e.NPromptTokens, NCtx: e.NCtx, Message: e.Message}
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &llm.ServerError{Backend: backend, Status: status, Message: prefix + msg, Type: e.Type}
}

// parseErrorBody reads an error answer in any of the shapes servers use:
// {"error": {"code","message","type"}}, {"error": "text"}, a bare error
// object, or plain text.
func parseErrorBody(body []byte) apiError {
	trimmed := bytes.TrimSpace(body)
	var wrapped struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(trimmed, &wrapped) == nil && len(wrapped.Error) > 0 {
		var e apiError
		if json.Unmarshal(wrapped.Error, &e) == nil && e.Message != "" {
			return e
		}
		var s string
		if json.Unmarshal(wrapped.Error, &s) == nil && s != "" {
			return apiError{Message: s}
		}
	}
	var e apiError
	if json.Unmarshal(trimmed, &e) == nil && e.Message != "" {
		return e
	}
	msg := strings.TrimSpace(string(trimmed))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return apiError{Message: msg}
}

// timings is the "timings" object of a final event.
type timings struct {
	CacheN     *int `json:"cache_n"`
	PromptN    int  `json:"prompt_n"`
	PredictedN int  `json:"predicted_n"`
}

// completionEvent is one /completion stream event.
type completionEvent struct {
	Content         string          `json:"content"`
	Stop            bool            `json:"stop"`
	Model           string          `json:"model"`
	StopType        string          `json:"stop_type"`
	StoppedEOS      bool            `json:"stopped_eos"`
	StoppedWord     bool            `json:"stopped_word"`
	StoppedLimit    bool            `json:"stopped_limit"`
	TokensPredicted int             `json:"tokens_predicted"`
	TokensEvaluated int             `json:"tokens_evaluated"`
	Timings         *timings        `json:"timings"`
	Error           json.RawMessage `json:"error"`
}

// parseCompletionEvent decodes one "data" value of a /completion stream.
func parseCompletionEvent(data []byte) (completionEvent, error) {
	var ev completionEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, fmt.Errorf("unreadable stream event: %w", err)
	}
	return ev, nil
}

// doneReason maps llama-server's stop type onto Ollama's vocabulary.
func (ev completionEvent) doneReason() string {
	switch {
	case ev.StopType == "limit" || ev.StoppedLimit:
		return "length"
	case ev.StopType == "eos" || ev.StopType == "word" || ev.StoppedEOS || ev.StoppedWord:
		return "stop"
	}
	return ev.StopType
}

// chatEvent is one /v1/chat/completions stream chunk.
type chatEvent struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Timings *timings        `json:"timings"`
	Error   json.RawMessage `json:"error"`
}

func parseChatEvent(data []byte) (chatEvent, error) {
	var ev chatEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, fmt.Errorf("unreadable stream event: %w", err)
	}
	return ev, nil
}
