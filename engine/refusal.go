package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/prefrag/prefrag/llm"
)

// A prompt the server would not read whole. A server that refuses a prompt
// over the context it runs a request with (llm.ContextExceededError:
// Ollama with "truncate": false, llama-server, vLLM) or that cut it and
// answered (llm.PromptCutError: an older Ollama, Ollama's /v1) tells what
// prefrag's count missed: the prompt's real size (the refusal's count, or
// at least the context for a cut) and the context the request really ran
// with. The run learns both (learnRefusal). Where the prompt can be made
// smaller — earlier observations condensed, the judge's earlier documents
// left out, fewer earlier turns in a rewrite — it is made again within
// what is now known and sent once more, with a notice that says so
// (sendFitted); where it cannot, the refusal ends the run, in one sentence
// naming the server's setting. The reply to a cut prompt is never used.

// learnRefusal learns from a refusal or a cut of req's prompt: the context
// the request really ran with, and the prompt's size.
func (r *run) learnRefusal(req llm.Request, err error) {
	var ce *llm.ContextExceededError
	var pc *llm.PromptCutError
	switch {
	case errors.As(err, &ce):
		r.noteContext(ce.NCtx)
		tokens := ce.PromptTokens
		if tokens <= 0 {
			tokens = r.settings.ContextTokens() + 1
		}
		r.learnSize(req, tokens)
	case errors.As(err, &pc):
		r.noteContext(pc.Context)
		r.learnSize(req, max(r.settings.ContextTokens(), pc.Kept)+1)
	}
}

// refreshContext takes the context the reasoning model's server will run
// the next request with, when its client knows it (NumCtx: llama.cpp's
// slot, vLLM's max_model_len, Ollama's /v1 runner as read after each
// request, which a reload may have changed).
func (r *run) refreshContext() {
	if nc, ok := r.eng.cfg.LLM.(interface{ NumCtx() int }); ok {
		r.noteContext(nc.NumCtx())
	}
}

// noteContext makes n, a context a request really ran with, the run's
// context when it differs from what the run counted with.
func (r *run) noteContext(n int) {
	if n > 0 && n != r.settings.ContextTokens() {
		r.settings.ServerCtx = n
	}
}

// learnSize notes that req's prompt has at least tokens tokens: its kind's
// factor grows to count it so, and a reasoning prompt's count is the base
// of the next estimate.
func (r *run) learnSize(req llm.Request, tokens int) {
	r.notePrompt(req, tokens)
	e := llm.Estimate(req.Prompt)
	if est := e.Tokens(); est > 0 {
		k := r.refinement.calib.of(e.Kind())
		k.measured = max(k.measured, k.factor(), min(float64(tokens)/float64(est), factorMax))
	}
}

// contextTrouble words a refusal or a cut of a prompt for a notice; ok is
// false for any other error.
func contextTrouble(err error, purpose llm.Purpose) (string, bool) {
	var ce *llm.ContextExceededError
	var pc *llm.PromptCutError
	switch {
	case errors.As(err, &ce):
		size := ""
		if ce.PromptTokens > 0 {
			size = fmt.Sprintf(" (it counted %d tokens)", ce.PromptTokens)
		}
		ctx := "its context"
		if ce.NCtx > 0 {
			ctx = fmt.Sprintf("its context of %d tokens", ce.NCtx)
		}
		return fmt.Sprintf("the server refused the %s prompt as longer than %s%s", purpose, ctx, size), true
	case errors.As(err, &pc):
		return fmt.Sprintf("the server cut the %s prompt to %d tokens to fit its context of %d tokens, so its reply was not used", purpose, pc.Kept, pc.Context), true
	}
	return "", false
}

// sendFitted sends the request build makes. When the server refuses its
// prompt as over the context or cuts it, build makes it again with what
// the run learnt and, when that prompt is smaller, it is sent once more
// with a notice; else the refusal stands (a fatal error).
func (r *run) sendFitted(ctx context.Context, model LLM, step int, build func() (llm.Request, error)) (llm.Response, error) {
	req, err := build()
	if err != nil {
		return llm.Response{}, err
	}
	resp, err := r.call(ctx, model, req, step)
	trouble, ok := contextTrouble(err, req.Purpose)
	if !ok || ctx.Err() != nil {
		return resp, err
	}
	before := r.count(req.Prompt)
	again, berr := build()
	if berr != nil {
		return resp, berr
	}
	after := r.count(again.Prompt)
	if again.Prompt == req.Prompt || after >= before {
		return resp, err // nothing left to leave out: the refusal stands
	}
	r.warn(step, "", fmt.Sprintf("%s; prefrag shortened it from about %d to about %d tokens and sent it again", trouble, before, after))
	return r.call(ctx, model, again, step)
}
