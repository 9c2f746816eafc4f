package openai

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// apiError is an error answer (transport.ErrorBody, any of the shapes
// OpenAI-compatible servers use) with what this backend reads in it.
type apiError struct{ transport.ErrorBody }

// parseErrorBody reads an error answer.
func parseErrorBody(body []byte) apiError { return apiError{transport.ParseErrorBody(body)} }

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
