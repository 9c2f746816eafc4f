package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
)

// Every call's prompt is checked against the context the server gives a
// request before it is sent: a prompt that cannot fit even after the
// budget's measures (refinement, thread documents left out, the judge's
// earlier documents left out) is an error, never sent. Sizes are counted
// with the estimate that follows the script, calibrated per kind of text
// (calibration.go); near the context, a server with a tokenizer
// (llama-server's /tokenize) counts the whole prompt itself.

// ErrPromptTooLarge is matched when a prompt cannot fit the context.
var ErrPromptTooLarge = errors.New("the prompt does not fit the context")

// PromptTooLargeError says which prompt did not fit, by how much, and what
// to change. The prompt was not sent.
type PromptTooLargeError struct {
	Purpose string // the call: step, judge, rewrite, forced, refine…
	Tokens  int    // its estimated tokens
	Context int    // the context the server gives a request
	Reserve int    // tokens kept for the reply
	// PerSlot is " per slot" when the context is one server slot's.
	PerSlot string
	Hint    string
}

func (e *PromptTooLargeError) Error() string {
	return fmt.Sprintf("the %s prompt (about %d tokens) does not fit the context of %d tokens%s with room for its reply, so it was not sent — %s",
		e.Purpose, e.Tokens, e.Context, e.PerSlot, e.Hint)
}

func (e *PromptTooLargeError) Is(target error) bool { return target == ErrPromptTooLarge }

const (
	// maxReplyReserve is the most of a call's generation limit that must
	// fit beside the prompt for it to be sent.
	maxReplyReserve = 256
	// exactShare: a prompt counted at more than this share of the context
	// (with its reply's reserve) is counted by the server's tokenizer,
	// where it has one.
	exactShare = 0.8
	// templateTokens allows for the chat template the server wraps a
	// prompt in, which /tokenize of the bare prompt does not count.
	templateTokens = 16
)

// TokenCounter is implemented by backends that count text in the
// model's own tokens (llama-server's POST /tokenize).
type TokenCounter interface {
	CountTokens(ctx context.Context, text string) (int, error)
}

// calibrateByTokenizer counts text (the step prompt's head) with the
// server's tokenizer, where the backend has one, before the first call:
// the estimate of its kind is calibrated from the start. A failure
// changes nothing.
func (r *run) calibrateByTokenizer(ctx context.Context, text string) {
	if n, ok := r.exactCount(ctx, r.eng.cfg.LLM, text); ok {
		r.measure(r.eng.cfg.LLM, text, n, false)
	}
}

// exactCount counts text with model's tokenizer, when it has one and is
// the reasoning model's server.
func (r *run) exactCount(ctx context.Context, model LLM, text string) (int, bool) {
	tc, ok := model.(TokenCounter)
	if !ok || !sameLLM(model, r.eng.cfg.LLM) || llm.EstimateTokens(text) < calibrateMinTokens/4 {
		return 0, false
	}
	n, err := tc.CountTokens(ctx, text)
	return n, err == nil && n > 0
}

// checkFits refuses a prompt that cannot fit the context with room for
// some of its reply. Near the context, the server's own tokenizer counts
// the whole prompt (and the count calibrates the estimate).
func (r *run) checkFits(ctx context.Context, model LLM, req llm.Request) error {
	c := r.settings.ContextTokens()
	if c <= 0 {
		return nil
	}
	reserve := min(req.Options.NumPredict, maxReplyReserve)
	n := r.count(req.Prompt)
	if float64(n+reserve) > exactShare*float64(c) {
		if exact, ok := r.exactCount(ctx, model, req.Prompt); ok {
			r.measure(model, req.Prompt, exact, false)
			n = exact + templateTokens
		}
	}
	if n+reserve > c {
		e := &PromptTooLargeError{Purpose: string(req.Purpose), Tokens: n, Context: c, Reserve: reserve, Hint: r.contextHint()}
		if s, ok := r.eng.cfg.LLM.(interface{ ContextPerSlot() bool }); ok && s.ContextPerSlot() && r.settings.ServerCtx > 0 {
			e.PerSlot = " per slot"
		}
		return e
	}
	return nil
}

// contextHint says how to give prompts more room: as the backend says
// (its client's ContextHint), else in general terms.
func (r *run) contextHint() string {
	h := "raise --num-ctx or lower -k and --max-steps"
	if r.settings.ServerCtx > 0 {
		h = "give the server a larger context or lower -k and --max-steps"
	}
	if c, ok := r.eng.cfg.LLM.(interface{ ContextHint() string }); ok && c.ContextHint() != "" {
		h = c.ContextHint()
	}
	if r.stamp.threadTurn > 1 {
		h += ", or start a new conversation"
	}
	return h
}

// callBudget is the most tokens the prompt of a call other than a step
// may use: the refinement share of the context minus its generation limit.
func (r *run) callBudget(judge bool) int {
	c := r.settings.ContextTokens()
	if c <= 0 {
		return 0
	}
	pct := r.settings.RefineBudget
	if pct <= 0 {
		pct = DefaultRefineBudget
	}
	return max(c*pct/100-r.settings.OutputLimit(judge), 0)
}

// judgeObtained bounds the judge's "already obtained" text so that the
// judge prompt (whose other parts cost overhead tokens) fits its budget:
// whole documents are left out from the oldest, and a line says so.
func (r *run) judgeObtained(obtained string, overhead int) string {
	budget := r.callBudget(true)
	if budget <= 0 || r.count(obtained)+overhead <= budget {
		return obtained
	}
	blocks := splitDocBlocks(obtained)
	room := budget - overhead - r.count(judgeLeftOut)
	kept := 0
	used := 0
	for i := len(blocks) - 1; i >= 0; i-- {
		c := r.count(blocks[i])
		if used+c > room {
			break
		}
		used += c
		kept++
	}
	if !r.refinement.warnedJudge {
		r.refinement.warnedJudge = true
		r.warn(r.pad.turn, "", fmt.Sprintf("the judge was shown the latest %d of %d documents already obtained, to fit the context of %d tokens", kept, len(blocks), r.settings.ContextTokens()))
	}
	return judgeLeftOut + strings.Join(blocks[len(blocks)-kept:], "")
}

const judgeLeftOut = "(earlier documents are left out to fit the context)\n"

// splitDocBlocks splits an observation text into its documents' blocks
// ("[n] title: …" up to the next one).
func splitDocBlocks(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '[' && (i == 0 || s[i-1] == '\n') && i > start && isDocStart(s[i:]) {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

func isDocStart(s string) bool {
	j := 1
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j > 1 && strings.HasPrefix(s[j:], "] title: ")
}

// boundText cuts text (a part of a prompt whose other parts cost overhead
// tokens) to what fits the budget of a call, saying so in the text.
func (r *run) boundText(text string, overhead int) string {
	budget := r.callBudget(false)
	if budget <= 0 || r.count(text)+overhead <= budget {
		return text
	}
	room := max(budget-overhead, 0)
	// The longest prefix (in runes) that fits, by bisection: the count of
	// a prefix grows with its length.
	lo, hi := 0, utf8.RuneCountInString(text)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if r.count(textsafe.Truncate(text, mid)) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return textsafe.Truncate(text, lo) + "\n(the rest is left out to fit the context)\n"
}
