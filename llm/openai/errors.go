package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/llm"
)

// apiError is an error answer in any of the shapes OpenAI-compatible
// servers use: OpenAI's {"error": {"message","type","param","code"}} (code
// a string such as "context_length_exceeded", or vLLM's number), vLLM's
// and SGLang's bare {"object":"error","message",…}, llama-server's
// {"error": {"code","message","type","n_prompt_tokens","n_ctx"}},
// {"error": "text"}, FastAPI's {"detail": …} or plain text.
type apiError struct {
	Message       string
	Type          string
	Param         string
	Code          string // as text, whether the server sent a string or a number
	NPromptTokens int
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

func (r rawError) apiError() apiError {
	e := apiError{Message: r.Message, Param: scalar(r.Param), Code: scalar(r.Code), NPromptTokens: r.NPromptTokens, NCtx: r.NCtx}
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

const maxMessage = 300

// parseErrorBody reads an error answer (see apiError).
func parseErrorBody(body []byte) apiError {
	trimmed := bytes.TrimSpace(body)
	var wrapped struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(trimmed, &wrapped) == nil {
		if len(wrapped.Error) > 0 {
			var r rawError
			if json.Unmarshal(wrapped.Error, &r) == nil && r.Message != "" {
				return r.apiError()
			}
			var s string
			if json.Unmarshal(wrapped.Error, &s) == nil && s != "" {
				return apiError{Message: clip(s)}
			}
		}
		if len(wrapped.Detail) > 0 {
			var s string
			if json.Unmarshal(wrapped.Detail, &s) == nil && s != "" {
				return apiError{Message: clip(s)}
			}
			var list []struct {
				Msg string `json:"msg"`
			}
			if json.Unmarshal(wrapped.Detail, &list) == nil && len(list) > 0 && list[0].Msg != "" {
				return apiError{Message: clip(list[0].Msg)}
			}
		}
	}
	var r rawError
	if json.Unmarshal(trimmed, &r) == nil && r.Message != "" {
		return r.apiError()
	}
	return apiError{Message: clip(strings.TrimSpace(string(trimmed)))}
}

func clip(s string) string {
	if len(s) > maxMessage {
		return s[:maxMessage] + "…"
	}
	return s
}

// text is the message, or the status text when the server gave none.
func (e apiError) text() string {
	if e.Message != "" {
		return e.Message
	}
	return "no message"
}

// status is the HTTP status an in-stream error object names (its numeric
// code), 0 when it names none.
func (e apiError) status() int {
	n, err := strconv.Atoi(e.Code)
	if err != nil || n < 100 || n > 599 {
		return 0
	}
	return n
}

// namesModel reports whether a 404 is about the model rather than the path
// (vLLM: "The model `x` does not exist.").
func (e apiError) namesModel() bool {
	m := strings.ToLower(e.Message + " " + e.Param + " " + e.Code)
	return strings.Contains(m, "model")
}

var (
	contextWords = lazyre.New(`(?i)context[_ ]length|context (size|window)|maximum context|context_window|prompt is too long|too many tokens|longer than the model`)
	ctxNumbers   = []func() *regexp.Regexp{
		lazyre.New(`(?i)maximum context length is (\d+)`),
		lazyre.New(`(?i)context (?:length|size|window) (?:of (?:only )?)?\(?(\d+)`),
		lazyre.New(`(?i)available context size \((\d+)`),
	}
	promptNumbers = []func() *regexp.Regexp{
		lazyre.New(`(?i)\((\d+) in the messages`),
		lazyre.New(`(?i)messages resulted in (\d+) tokens`),
		lazyre.New(`(?i)request has (\d+) input tokens`),
		lazyre.New(`(?i)(?:input|request|prompt) \((\d+) tokens\)`),
	}
)

// contextExceeded returns the typed error when the answer says the prompt
// (with its max_tokens) does not fit the model's context, nil otherwise.
func (e apiError) contextExceeded(status int) *llm.ContextExceededError {
	if status != 0 && status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge && status != http.StatusUnprocessableEntity {
		return nil
	}
	if e.Code != "context_length_exceeded" && e.Type != "exceed_context_size_error" && !contextWords().MatchString(e.Message) {
		return nil
	}
	ce := &llm.ContextExceededError{Backend: backend, PromptTokens: e.NPromptTokens, NCtx: e.NCtx, Message: e.Message}
	ce.Server, ce.Hint = e.refuser()
	ce.PerSlot = e.Type == "exceed_context_size_error"
	if ce.NCtx == 0 {
		ce.NCtx = firstNumber(ctxNumbers, e.Message)
	}
	if ce.PromptTokens == 0 {
		ce.PromptTokens = firstNumber(promptNumbers, e.Message)
	}
	return ce
}

func firstNumber(res []func() *regexp.Regexp, s string) int {
	for _, re := range res {
		if m := re().FindStringSubmatch(s); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return n
			}
		}
	}
	return 0
}

var (
	vllmWords   = lazyre.New(`(?i)maximum context length is \d+`)
	sglangWords = lazyre.New(`(?i)longer than the model's context length`)
)

// refuser names the server that refused a prompt over its context, by the
// shape of its error, and the setting of that server that gives a request
// more room ("" for the backend's own words).
func (e apiError) refuser() (server, hint string) {
	const less = " or lower -k and --max-steps"
	switch {
	case e.Type == "exceed_context_size_error":
		return "llama-server", llm.BackendOf("llamacpp").ContextHint
	case e.Code == "context_length_exceeded":
		return "", "use a model with a longer context" + less
	case sglangWords().MatchString(e.Message):
		return "SGLang", "restart SGLang with a larger --context-length (at most the model's own context)" + less
	case vllmWords().MatchString(e.Message):
		return "vLLM", "restart vLLM with a larger --max-model-len (at most the model's own context)" + less
	}
	return "", ""
}
