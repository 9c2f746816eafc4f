package ollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/llm"
)

// A request that sends "truncate": false gets, for a prompt longer than
// its context, the refusal of Ollama's model runner (llama-server) passed
// on as Ollama's own error: HTTP 400 {"error": "<the runner's JSON>"},
// the runner's JSON being {"error": {"code": 400, "message": "request
// (4182 tokens) exceeds the available context size (2048 tokens), try
// increasing it", "type": "exceed_context_size_error", "n_prompt_tokens":
// 4182, "n_ctx": 2048}}. Ollama's own check says "the prompt is longer than
// the context length currently available to the model". Either is turned
// into an llm.ContextExceededError that says, in one sentence, what to
// change; the raw JSON is never shown.

var (
	availableContext = lazyre.New(`(?i)request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)`)
	contextPhrases   = lazyre.New(`(?i)exceeds the available context|longer than the context length|input length exceeds the context length|exceed_context_size_error`)
)

// runnerError is the runner's error object inside Ollama's message.
type runnerError struct {
	Error struct {
		Message       string `json:"message"`
		Type          string `json:"type"`
		NPromptTokens int    `json:"n_prompt_tokens"`
		NCtx          int    `json:"n_ctx"`
	} `json:"error"`
}

// contextRefusal returns the typed error when an answer with status (0:
// inside a stream) and message is Ollama's refusal of a prompt over the
// context the request ran with (nCtx), nil otherwise.
func (c *Client) contextRefusal(status int, msg string, nCtx int) *llm.ContextExceededError {
	switch status {
	case 0, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusInternalServerError:
	default:
		return nil
	}
	if !contextPhrases().MatchString(msg) {
		return nil
	}
	e := &llm.ContextExceededError{Backend: backend, Server: "Ollama", NCtx: nCtx, Message: msg}
	var inner runnerError
	if json.Unmarshal([]byte(strings.TrimSpace(msg)), &inner) == nil && inner.Error.Message != "" {
		e.Message, e.PromptTokens = inner.Error.Message, inner.Error.NPromptTokens
		if inner.Error.NCtx > 0 {
			e.NCtx = inner.Error.NCtx
		}
	}
	if m := availableContext().FindStringSubmatch(e.Message); m != nil {
		e.PromptTokens = atoi(m[1], e.PromptTokens)
		e.NCtx = atoi(m[2], e.NCtx)
	}
	e.Hint = c.contextFix(e.NCtx)
	return e
}

func atoi(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return def
}

// refusal turns a server error that is a context refusal into its typed
// error; any other error is returned as it is.
func (c *Client) refusal(err error, nCtx int) error {
	var se *llm.ServerError
	if !errors.As(err, &se) {
		return err
	}
	if ce := c.contextRefusal(se.Status, se.Message, nCtx); ce != nil {
		return ce
	}
	return err
}

// contextFix says what gives a request that ran with nCtx tokens more
// room: a larger --num-ctx, unless the model's own context is the bound.
func (c *Client) contextFix(nCtx int) string {
	if m := c.ContextCap(); m > 0 && nCtx >= m {
		return fmt.Sprintf("the model's own context is %d tokens, so a larger --num-ctx does not help: lower -k and --max-steps, or use a model with a longer context", m)
	}
	return fmt.Sprintf("raise --num-ctx (this request ran with %d tokens) or lower -k and --max-steps", nCtx)
}
