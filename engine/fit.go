package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
)

// Every call's prompt is checked against the context the server gives a
// request before it is sent: a prompt that cannot fit even after the
// budget's measures (refinement, thread documents left out, the judge's
// earlier documents left out) is an error, never sent. Sizes are counted
// with the runes/4 estimate, calibrated from the prompt counts the server
// reports (never below the estimate), starting from the factor kept for
// the model by earlier runs (calibration.go).

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

// Limits of the calibration: it never shrinks the estimate, and a
// prompt's count grows it by at most half.
const (
	calibrateMinTokens = 200
	calibrateMax       = 1.5
	// maxReplyReserve is the most of a call's generation limit that must
	// fit beside the prompt for it to be sent.
	maxReplyReserve = 256
)

// count is a text's tokens: the runes/4 estimate times the run's
// calibration.
func (r *run) count(s string) int {
	est := EstimateTokens(s)
	if r.refinement.ratio <= 1 {
		return est
	}
	return int(math.Ceil(float64(est) * r.refinement.ratio))
}

// calibrate learns from a reply's prompt count how the server's tokenizer
// compares with the estimate (never below it).
func (r *run) calibrate(model LLM, req llm.Request, resp llm.Response) {
	if resp.PromptTokens <= 0 {
		return
	}
	est := EstimateTokens(req.Prompt)
	if est < calibrateMinTokens {
		return
	}
	q := float64(resp.PromptTokens) / float64(est)
	r.measure(model, q)
	if q > max(r.refinement.ratio, 1) {
		r.refinement.ratio = min(q, calibrateMax)
	}
}

// TokenCounter is implemented by backends that count text in the
// model's own tokens (llama-server's POST /tokenize).
type TokenCounter interface {
	CountTokens(ctx context.Context, text string) (int, error)
}

// calibrateByTokenizer counts text (the step prompt's head) with the
// server's tokenizer, where the backend has one, before the first call:
// the estimate is calibrated from the start. A failure changes nothing.
func (r *run) calibrateByTokenizer(ctx context.Context, text string) {
	tc, ok := r.eng.cfg.LLM.(TokenCounter)
	est := EstimateTokens(text)
	if !ok || est < calibrateMinTokens/4 {
		return
	}
	n, err := tc.CountTokens(ctx, text)
	if err != nil || n <= 0 {
		return
	}
	q := float64(n) / float64(est)
	r.measure(r.eng.cfg.LLM, q)
	if q > max(r.refinement.ratio, 1) {
		r.refinement.ratio = min(q, calibrateMax)
	}
}

// checkFits refuses a prompt that cannot fit the context with room for
// some of its reply.
func (r *run) checkFits(req llm.Request) error {
	c := r.settings.ContextTokens()
	if c <= 0 {
		return nil
	}
	reserve := min(req.Options.NumPredict, maxReplyReserve)
	if n := r.count(req.Prompt); n+reserve > c {
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
	runes := max((budget-overhead)*charsPerToken, 0)
	if r.refinement.ratio > 1 {
		runes = int(float64(runes) / r.refinement.ratio)
	}
	return textsafe.Truncate(text, runes) + "\n(the rest is left out to fit the context)\n"
}
