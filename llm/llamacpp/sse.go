package llamacpp

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/sse"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// The event stream reader and the chat chunk are shared with llm/openai
// (package sse); these names keep this package's vocabulary.
type (
	sseLine   = sse.Line
	timings   = sse.Timings
	chatEvent = sse.ChatChunk
)

func parseChatEvent(data []byte) (chatEvent, error) { return sse.ParseChatChunk(data) }

// apiError is an error answer (transport.ErrorBody; llama-server's
// object is {"code","message","type"}, with n_prompt_tokens and n_ctx when
// the prompt exceeds the context).
type apiError struct{ transport.ErrorBody }

// parseErrorBody reads an error answer in any of the shapes servers use.
func parseErrorBody(body []byte) apiError { return apiError{transport.ParseErrorBody(body)} }

// typed returns the llm error for a server error object with HTTP status
// (the object's own code when status is 0).
func (e apiError) typed(status int, prefix string) error {
	if status == 0 {
		status = e.Status()
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
