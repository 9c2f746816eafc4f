package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
)

// Thread is what a follow-up question needs from the earlier turns of its
// session (a thread). The caller builds it from the stored events
// (fold.Thread does).
type Thread struct {
	// Turn is the number of the turn to run: 2 for the first follow-up.
	Turn int
	// LastSeq is the seq of the session's last stored event: the follow-up's
	// events continue from it.
	LastSeq int
	// Turns are the earlier turns, oldest first.
	Turns []PriorTurn
	// Docs are the documents the earlier turns observed, in number order:
	// Docs[i] was cited as [i+1], and keeps that number.
	Docs []Document
	// Privacy is the strictest privacy any earlier turn had (privacy.go);
	// nil when no turn recorded one.
	Privacy *Privacy
}

// PriorTurn is one earlier question of a thread and its final answer.
type PriorTurn struct {
	// Question is the standalone question the turn answered (its rewrite,
	// or the question as asked for the first turn).
	Question string
	Answer   string
	// Label is the final answer's self-evaluation label.
	Label string
	// Cited are the document numbers its final answer cited.
	Cited []int
	// Quotes are the sentences of the cited documents that support the
	// answer's claims (its evidence event), each once, in the order of
	// the claims; N is the document's number in the thread.
	Quotes []evidence.Quote
}

// purposeRewrite is the follow-up rewrite call: plain text, no structured
// output, no stop sequence, not streamed.
const purposeRewrite llm.Purpose = "rewrite"

// Limits of the rewrite: its reply, and the earlier answers it is shown.
const (
	rewriteOutputTokens = 200
	rewriteMaxRunes     = 600
	priorAnswerRunes    = 1500
)

// ErrThread is matched by an unusable Thread in a Request.
var ErrThread = errors.New("invalid thread")

// startTurn opens a follow-up turn: it rewrites the follow-up into a
// standalone question (the rewrite event), which the rest of the run
// answers, and puts the documents of the earlier turns into the context
// with their numbers.
func (r *run) startTurn(ctx context.Context) error {
	th := r.req.Thread
	original := r.req.Question
	rewritten, err := r.rewrite(ctx, th, original)
	if err != nil {
		return err
	}
	p := r.privacy
	r.emit(Event{Payload: Rewrite{Original: original, Rewritten: rewritten, Privacy: &p}})
	r.req.Question = rewritten
	return r.primeThread(th)
}

// rewrite asks the model for the standalone form of a follow-up. A failed
// or empty rewrite keeps the follow-up as asked, with a notice; only a
// cancelled run stops here.
func (r *run) rewrite(ctx context.Context, th *Thread, followUp string) (string, error) {
	opts := r.options()
	build := func() (llm.Request, error) {
		data := prompts.RewriteData{FollowUp: textsafe.ForPrompt(followUp)}
		// The earlier turns within their share of the budget
		// (thread_budget.go).
		tp := planTurns(th.Turns, r.share(rewriteTurnsShare), false, r.count)
		data.Turns, data.TurnsLeftOut = tp.turns, len(tp.leftOut)
		prompt, err := r.prompts.Rewrite(data)
		if err != nil {
			return llm.Request{}, &FatalError{Err: err}
		}
		opts.NumPredict = min(rewriteOutputTokens, r.settings.OutputLimit(false))
		return llm.Request{Purpose: purposeRewrite, Prompt: prompt, Options: opts}, nil
	}
	resp, err := r.sendFitted(ctx, r.eng.cfg.LLM, 0, build)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		r.warn(0, "", fmt.Sprintf("the follow-up could not be rewritten (%v); searching with it as asked", err))
		return followUp, nil
	}
	if resp.Truncated() {
		// Cut at its limit, the rewrite is half a question: searching
		// with it would answer something nobody asked.
		r.warn(0, "", fmt.Sprintf("the follow-up's rewrite was cut at its limit of %d tokens; searching with the question as typed", opts.NumPredict))
		return followUp, nil
	}
	q := ParseRewrite(resp.Text)
	if q == "" {
		r.warn(0, "", "the model gave no standalone question for the follow-up; searching with it as asked")
		return followUp, nil
	}
	return q, nil
}

// rewriteLabels are labels a model may put before its rewritten question.
var rewriteLabels = []string{"standalone question", "rewritten question", "follow-up question", "follow up question", "question", "rewritten", "query"}

// ParseRewrite reads the rewrite call's plain-text reply: the first
// non-empty line, without a leading label ("Standalone question:"),
// markdown emphasis or surrounding quotes, made safe for a prompt (it is
// the question of the loop and the reflection's query) and capped in
// length. It returns "" when nothing usable is left.
func ParseRewrite(text string) string {
	text = textsafe.ForTerminal(text)
	line := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		// A bare label on a line of its own ("Standalone question:") is
		// followed by the question on the next line.
		if l == "" || strings.HasSuffix(l, ":") && isRewriteLabel(strings.TrimSuffix(strings.Trim(l, "*_ "), ":")) {
			continue
		}
		line = l
		break
	}
	for i := 0; i < 3; i++ {
		before := line
		line = strings.TrimSpace(strings.Trim(line, "*_`"))
		if k := strings.IndexAny(line, ":："); k > 0 && isRewriteLabel(strings.Trim(line[:k], "*_ ")) {
			line = strings.TrimSpace(line[k+len(string([]rune(line[k:])[0])):])
		}
		line = trimQuotes(line)
		if line == before {
			break
		}
	}
	line = textsafe.ForPrompt(line)
	return textsafe.Truncate(line, rewriteMaxRunes)
}

func isRewriteLabel(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, l := range rewriteLabels {
		if s == l {
			return true
		}
	}
	return false
}

func trimQuotes(s string) string {
	pairs := [][2]string{{`"`, `"`}, {"'", "'"}, {"“", "”"}, {"«", "»"}, {"„", "“"}}
	for _, p := range pairs {
		if len(s) >= len(p[0])+len(p[1]) && strings.HasPrefix(s, p[0]) && strings.HasSuffix(s, p[1]) {
			return strings.TrimSpace(s[len(p[0]) : len(s)-len(p[1])])
		}
	}
	return s
}

// primeThread numbers the earlier turns' documents as they were numbered
// (new documents get numbers after them), and renders the thread block of
// the step prompt with the documents and turns chosen for the question
// within their shares of the budget (thread_budget.go); the carried
// documents also go into the judge's "already obtained" text. It emits the
// thread_context event.
func (r *run) primeThread(th *Thread) error {
	for _, d := range th.Docs {
		r.ledger.docs = append(r.ledger.docs, d)
		n := len(r.ledger.docs)
		if _, dup := r.ledger.docNum[docKey(d)]; !dup {
			r.ledger.docNum[docKey(d)] = n
		}
	}
	// The block's own words (its headings) come out of the documents' share.
	frame, err := r.prompts.ThreadContext(prompts.ThreadData{Documents: "-", TurnsLeftOut: 1, DocsLeftOut: 1})
	if err != nil {
		return &FatalError{Err: err}
	}
	dp := planDocs(th, r.req.Question, r.share(threadDocsShare)-r.count(frame), r.docCost)
	obs := make([]prompts.ObservedDoc, 0, len(dp.carried))
	for _, n := range dp.carried {
		obs = append(obs, r.promptDoc(n, th.Docs[n-1]))
	}
	tp := planTurns(th.Turns, r.share(threadTurnsShare), true, r.count)
	data := prompts.ThreadData{Turns: tp.turns, TurnsLeftOut: len(tp.leftOut), DocsLeftOut: len(dp.leftOut)}
	if len(obs) > 0 {
		block, err := r.prompts.Observation(prompts.ObservationData{Docs: obs})
		if err != nil {
			return &FatalError{Err: err}
		}
		data.Documents = block
		r.ledger.obtained.WriteString(block)
		// The carried documents are refined like an earlier observation
		// (refine.go).
		r.refinement.threadDocs, r.refinement.threadDocCount = block, len(obs)
	}
	text, err := r.prompts.ThreadContext(data)
	if err != nil {
		return &FatalError{Err: err}
	}
	r.pad.thread = text
	r.emit(Event{Payload: ThreadContext{
		DocsCarried: dp.carried, DocsLeftOut: dp.leftOut,
		TurnsShortened: tp.shortened, TurnsLeftOut: tp.leftOut,
		QuotesCarried: tp.quotesCarried, QuotesLeftOut: tp.quotesLeftOut,
		Tokens: r.count(text), Budget: r.share(threadDocsShare + threadTurnsShare), PromptBudget: r.settings.PromptBudget(),
	}})
	return nil
}

// docCost is the tokens document n takes in a prompt, without rendering
// it: its title and text (capped at max_doc_chars, with the cut's note)
// and the observation's frame around them ("[n] title: …\ncontent: …").
func (r *run) docCost(n int, d Document) int {
	text, extra := d.Text, 0
	if m := r.settings.MaxDocChars; m > 0 && utf8.RuneCountInString(text) > m {
		text, extra = textsafe.Truncate(text, m), 30
	}
	return r.count(d.Title) + r.count(text) + extra + r.docFrame(n)
}

// docFrame is the tokens of an observation's frame around a document
// numbered n, rendered once per width of the number.
func (r *run) docFrame(n int) int {
	w := digits(n)
	if c, ok := r.ledger.frames[w]; ok {
		return c
	}
	c := 12
	if text, err := r.prompts.Observation(prompts.ObservationData{Docs: []prompts.ObservedDoc{{Num: n}}}); err == nil {
		c = r.count(text) + 2 // the title's and the text's first tokens join the frame's
	}
	if r.ledger.frames == nil {
		r.ledger.frames = map[int]int{}
	}
	r.ledger.frames[w] = c
	return c
}

// digits is the width of n written in decimal (without allocating: a
// thread's every document is costed).
func digits(n int) int {
	w := 1
	for ; n >= 10 || n <= -10; n /= 10 {
		w++
	}
	if n < 0 {
		w++
	}
	return w
}

// share is pct percent of the prompt budget; no limit when the context is
// unknown.
func (r *run) share(pct int) int {
	b := r.settings.PromptBudget()
	if b <= 0 {
		return math.MaxInt / 2
	}
	return max(b*pct/100, minTurnsShareToken)
}

// validThread checks a follow-up's thread.
func validThread(th *Thread) error {
	switch {
	case th == nil:
		return nil
	case th.Turn < 2:
		return fmt.Errorf("%w: a follow-up is turn 2 or later, not %d", ErrThread, th.Turn)
	case th.LastSeq < 1:
		return fmt.Errorf("%w: the thread has no stored events", ErrThread)
	}
	return nil
}
