package llm

import (
	"fmt"
)

// A server that cuts an over-long prompt instead of refusing it still
// answers normally: only the prompt count it reports shows the cut.
// Ollama (its native API when a request does not send "truncate": false,
// and its OpenAI-compatible /v1, which cannot send it) keeps the first
// num_keep tokens and the tail, so that half the context is left for the
// reply: Ollama 0.34.4 logged `truncating input prompt limit=1026
// prompt=3201 keep=4` for a context of 2,048 and answered
// prompt_eval_count 1026 — the count never reaches the context, and the
// instructions at the head of the prompt are gone.

// OllamaV1Context is the context Ollama's runner is assumed to run a /v1
// request with, which takes no num_ctx: Ollama's default without
// OLLAMA_CONTEXT_LENGTH. A /v1 request reloads a runner loaded with
// another context (a native request's num_ctx) at the server's default,
// so a larger context shown by GET /api/ps is believed only once a /v1
// request has run on it.
const OllamaV1Context = 4096

// OllamaKeep is the num_keep Ollama cuts with unless a Modelfile sets
// another.
const OllamaKeep = 4

// OllamaCutKept is the count Ollama reports for a prompt it cut to fit a
// context of numCtx tokens, keeping its first keep tokens:
// numCtx − (numCtx − keep)/2.
func OllamaCutKept(numCtx, keep int) int {
	if numCtx <= 1 {
		return 0
	}
	keep = max(0, min(keep, numCtx-1))
	return numCtx - max((numCtx-keep)/2, 1)
}

// Below this estimate a prompt is too short for the ratio test.
const cutMinTokens = 256

// CutRatio: on a server that may cut (one that does not say its context),
// a reported count below this share of the estimate means the server read
// less than was sent. The estimate follows the script (EstimateTokens,
// within 15% on the tokenizers it was measured on), and a cut leaves at
// most about half of the context.
const CutRatio = 0.5

// ollamaKeepMax bounds the num_keep a cut may have kept (4, one more for a
// tokenizer that adds a BOS token, a little more for a Modelfile's
// num_keep): Ollama reports a cut prompt as one of these few counts only,
// whatever the prompt, so such a count is taken for a cut even when the
// prompt was estimated smaller (its tokenizer may count the text more
// densely than the estimate).
const ollamaKeepMax = 8

// HowCut says how a server cuts an over-long prompt, for CheckCut.
type HowCut int

const (
	// CutsLikeOllama: the count is OllamaCutKept of the context.
	CutsLikeOllama HowCut = iota
	// MayCut: a server of unknown ways, checked against the estimate.
	MayCut
)

// PromptCut reports whether a reply's prompt count shows that the server
// cut the prompt: the count reaches the context the server ran the request
// with (limit, 0 when unknown); on Ollama it is the count of a cut to that
// context; on another server it is well below the prompt's estimate.
func PromptCut(prompt string, reported, limit int, how HowCut) bool {
	if reported <= 0 {
		return false
	}
	if limit > 0 && reported >= limit {
		return true
	}
	if how == CutsLikeOllama {
		return limit > 0 && reported >= OllamaCutKept(limit, 0) && reported <= OllamaCutKept(limit, ollamaKeepMax)
	}
	est := float64(EstimateTokens(prompt))
	return est >= cutMinTokens && float64(reported) < CutRatio*est
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
	Sent    int // the prompt's tokens as far as known: our estimate, at least the context
	Kept    int // the count the server reported
	Context int // the context the request really ran with
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
func CheckCut(backend, prompt string, resp Response, limit int, how HowCut, fix string) error {
	if !PromptCut(prompt, resp.PromptTokens, limit, how) {
		return nil
	}
	sent := EstimateTokens(prompt)
	if limit > 0 {
		sent = max(sent, limit)
	}
	return &PromptCutError{Backend: backend, Sent: sent, Kept: resp.PromptTokens, Context: limit, Fix: fix}
}
