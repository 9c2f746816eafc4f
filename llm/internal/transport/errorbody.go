package transport

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// ErrorBody is an error answer in any of the shapes the OpenAI-shaped
// servers use: OpenAI's {"error": {"message","type","param","code"}} (code
// a string such as "context_length_exceeded", or vLLM's number), vLLM's
// and SGLang's bare {"object":"error","message",…}, llama-server's
// {"error": {"code","message","type","n_prompt_tokens","n_ctx"}},
// {"error": "text"}, FastAPI's {"detail": …} or plain text.
type ErrorBody struct {
	Message       string
	Type          string
	Param         string
	Code          string // as text, whether the server sent a string or a number
	NPromptTokens int    // llama-server's exceed_context_size_error
	NCtx          int
}

type rawError struct {
	Message       string          `json:"message"`
	Type          *string         `json:"type"`
	Param         json.RawMessage `json:"param"`
	Code          json.RawMessage `json:"code"`
	NPromptTokens int             `json:"n_prompt_tokens"`
	NCtx          int             `json:"n_ctx"`
}

func (r rawError) body() ErrorBody {
	e := ErrorBody{Message: r.Message, Param: scalar(r.Param), Code: scalar(r.Code), NPromptTokens: r.NPromptTokens, NCtx: r.NCtx}
	if r.Type != nil {
		e.Type = *r.Type
	}
	return e
}

// scalar renders a JSON string or number as text ("" for null or others).
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// maxMessage bounds a message taken from text a server sent.
const maxMessage = 300

// ParseErrorBody reads an error answer (see ErrorBody).
func ParseErrorBody(body []byte) ErrorBody {
	trimmed := bytes.TrimSpace(body)
	var wrapped struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(trimmed, &wrapped) == nil {
		if len(wrapped.Error) > 0 {
			var r rawError
			if json.Unmarshal(wrapped.Error, &r) == nil && r.Message != "" {
				return r.body()
			}
			var s string
			if json.Unmarshal(wrapped.Error, &s) == nil && s != "" {
				return ErrorBody{Message: clip(s)}
			}
		}
		if len(wrapped.Detail) > 0 {
			var s string
			if json.Unmarshal(wrapped.Detail, &s) == nil && s != "" {
				return ErrorBody{Message: clip(s)}
			}
			var list []struct {
				Msg string `json:"msg"`
			}
			if json.Unmarshal(wrapped.Detail, &list) == nil && len(list) > 0 && list[0].Msg != "" {
				return ErrorBody{Message: clip(list[0].Msg)}
			}
		}
	}
	var r rawError
	if json.Unmarshal(trimmed, &r) == nil && r.Message != "" {
		return r.body()
	}
	return ErrorBody{Message: clip(strings.TrimSpace(string(trimmed)))}
}

func clip(s string) string {
	if len(s) > maxMessage {
		return s[:maxMessage] + "…"
	}
	return s
}

// Text is the message, or "no message" when the server gave none.
func (e ErrorBody) Text() string {
	if e.Message != "" {
		return e.Message
	}
	return "no message"
}

// Status is the HTTP status an error object names (its numeric code), 0
// when it names none.
func (e ErrorBody) Status() int {
	n, err := strconv.Atoi(e.Code)
	if err != nil || n < 100 || n > 599 {
		return 0
	}
	return n
}
