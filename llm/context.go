package llm

import (
	"fmt"
	"unicode/utf8"
)

// A server that cuts an over-long prompt instead of refusing it (Ollama,
// on its native API and on its /v1) still answers normally: only the
// prompt count it reports shows the cut. Ollama 0.34.4 logged `truncating
// input prompt limit=8194 prompt=18733 keep=4` and answered
// prompt_eval_count 8194: the instructions at the head were gone.

// OllamaV1Context is the context Ollama's runner is assumed to run with on
// its OpenAI-compatible /v1, which takes no num_ctx: Ollama's default
// (OLLAMA_CONTEXT_LENGTH unset) on small GPUs, unless GET /api/ps shows a
// loaded runner's own context.
const OllamaV1Context = 4096

// EstimateTokens is the fallback estimate of a text's tokens: runes/4,
// rounded up.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// Below this estimate a prompt is too short for the ratio test.
const cutMinTokens = 256

// CutRatio: a reported count below this share of the estimate means the
// server read less than was sent. Natural-language tokenizers give 3 to 5
// runes a token, so a whole prompt is reported at 0.8 or more of runes/4;
// the real Ollama cut above was reported at 0.58 of it.
const CutRatio = 0.65

// PromptCut reports whether a reply's prompt count shows that the server
// cut the prompt: the count reaches the context the server ran the request
// with (limit, 0 when unknown), or is well below the prompt's estimate.
func PromptCut(prompt string, reported, limit int) bool {
	if reported <= 0 {
		return false
	}
	if limit > 0 && reported >= limit {
		return true
	}
	est := EstimateTokens(prompt)
	return est >= cutMinTokens && float64(reported) < CutRatio*float64(est)
}

// ErrPromptCut is matched when the server cut a prompt before the model
// read it.
var ErrPromptCut = fmt.Errorf("the server cut the prompt")

// PromptCutError says the server read only part of a prompt: it kept
// Kept tokens of about Sent, within a context of Context (0 when
// unknown). The reply was built on the part kept and must not be
// presented as an answer to the whole.
type PromptCutError struct {
	Backend string
	Sent    int // our estimate of the prompt's tokens
	Kept    int // the count the server reported
	Context int
	// Fix says what to change (raise num_ctx, OLLAMA_CONTEXT_LENGTH…).
	Fix string
}

func (e *PromptCutError) Error() string {
	ctx := ""
	if e.Context > 0 {
		ctx = fmt.Sprintf(" (it ran the request with a context of %d tokens)", e.Context)
	}
	fix := e.Fix
	if fix == "" {
		fix = BackendOf(e.Backend).ContextHint
	}
	return fmt.Sprintf("the %s server cut the prompt: it read %d tokens of about %d sent%s, dropping the start of the prompt (the instructions), so its reply was not used — %s",
		e.Backend, e.Kept, e.Sent, ctx, fix)
}

func (e *PromptCutError) Is(target error) bool { return target == ErrPromptCut }

// CheckCut returns a *PromptCutError when resp's prompt count shows the
// server cut prompt (see PromptCut), else nil.
func CheckCut(backend, prompt string, resp Response, limit int, fix string) error {
	if !PromptCut(prompt, resp.PromptTokens, limit) {
		return nil
	}
	return &PromptCutError{Backend: backend, Sent: EstimateTokens(prompt), Kept: resp.PromptTokens, Context: limit, Fix: fix}
}
