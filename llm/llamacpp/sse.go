package llamacpp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/sse"
)

// The event stream reader and the chat chunk are shared with llm/openai
// (package sse); these names keep this package's vocabulary.
type (
	sseLine   = sse.Line
	timings   = sse.Timings
	chatEvent = sse.ChatChunk
)

func readEvents(r io.Reader, fn func(ev sseLine) (done bool, err error)) error {
	return sse.ReadEvents(r, fn)
}

func parseChatEvent(data []byte) (chatEvent, error) { return sse.ParseChatChunk(data) }

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
		return &llm.ContextExceededError{Backend: backend, PromptTokens: e.NPromptTokens, NCtx: e.NCtx, Message: e.Message, PerSlot: true}
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
