package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
)

// Observation refinement under the context budget (MSPR's Observation
// Refinement Strategy). Before a reasoning call whose prompt would pass the
// budget, the earlier observations (all but the newest) are condensed by
// the model into one note; the newest observation stays byte for byte.
// A refinement rewrites earlier text, so the server's prompt cache is
// reused only up to the first refined observation once: every earlier
// observation not yet refined is condensed at once, leaving room for the
// remaining steps, so it happens rarely. When even that cannot fit, the
// oldest notes are dropped, each with a non-fatal error event.

// DefaultRefineBudget is the share of the context (percent) a prompt plus
// its generation limit may use before earlier observations are refined.
const DefaultRefineBudget = 85

// Texts that replace refined or dropped observations in the scratchpad.
const (
	refinedAway = "(condensed into the note above)\n"
	droppedNote = "(earlier notes dropped to fit the context)\n"
)

// obsSpan is one observation's text in the scratchpad, [start, end).
type obsSpan struct {
	step       int
	start, end int
	refined    bool // the text is a refinement note (or refinedAway)
	note       bool // the text is a note that may be dropped
	dropped    bool
	// docs and notes are what the observation was rendered from, for
	// leaving documents out of it (trim.go).
	docs  []prompts.ObservedDoc
	notes []string
}

// refineState is the run's bookkeeping for the context budget.
type refineState struct {
	refineOn     bool
	spans        []obsSpan
	lastQuery    string
	lastPrompt   string
	lastTokens   int
	warnedBudget bool
	// calib calibrates the token estimate per kind of text
	// (calibration.go); warnedJudge is set once the judge's earlier
	// documents were cut to fit.
	calib       calibration
	warnedJudge bool
	// threadDocs is the text of the documents a follow-up carried from its
	// thread (thread.go) as it stands in the step prompt's head, and
	// threadDocCount how many there are; threadDocs is "" once they are
	// condensed. threadNote is the note that replaced them in the head,
	// "" when there is none (or it was dropped).
	threadDocs     string
	threadDocCount int
	threadNote     string
}

// PromptBudget is the most tokens a prompt may use: RefineBudget percent
// of the context minus the generation limit of a step; 0 when the context
// is unknown.
func (s Settings) PromptBudget() int {
	c := s.ContextTokens()
	if c <= 0 {
		return 0
	}
	pct := s.RefineBudget
	if pct <= 0 {
		pct = DefaultRefineBudget
	}
	return max(c*pct/100-s.OutputLimit(false), 0)
}

// notePrompt remembers the server's token count of a reasoning prompt, the
// base of the next estimate.
func (r *run) notePrompt(req llm.Request, tokens int) {
	if req.Purpose != llm.PurposeStep && req.Purpose != llm.PurposeForced {
		return
	}
	if tokens > 0 {
		r.refinement.lastPrompt, r.refinement.lastTokens = req.Prompt, tokens
	}
}

// estimate is the prompt's size in tokens: the server's count of the last
// reasoning prompt when this one extends it, plus the count of what was
// added; the count of the whole prompt otherwise (fit.go).
func (r *run) estimate(prompt string) int {
	if r.refinement.lastTokens > 0 && strings.HasPrefix(prompt, r.refinement.lastPrompt) {
		return r.refinement.lastTokens + r.count(prompt[len(r.refinement.lastPrompt):])
	}
	return r.count(prompt)
}

// recordObservation notes where an observation's text sits in the
// scratchpad.
func (r *run) recordObservation(start int, docs []prompts.ObservedDoc, notes []string) {
	r.refinement.spans = append(r.refinement.spans, obsSpan{step: r.pad.turn, start: start, end: r.pad.scratch.Len(), docs: docs, notes: notes})
}

// fitBudget runs before a reasoning call whose prompt is head + scratchpad
// + suffix: over the budget it refines the earlier observations (or, for a
// strategy without refinement, warns once), then drops the oldest notes
// while the prompt still does not fit.
func (r *run) fitBudget(ctx context.Context, suffix string) error {
	budget := r.settings.PromptBudget()
	if budget <= 0 {
		return nil
	}
	size := func() int { return r.estimate(r.pad.head + r.pad.scratch.String() + suffix) }
	est := size()
	if est <= budget {
		return nil
	}
	if !r.refinement.refineOn {
		if !r.refinement.warnedBudget {
			r.refinement.warnedBudget = true
			r.warn(r.pad.turn, "", fmt.Sprintf("the prompt (about %d tokens) passes the context budget of %d tokens; strategy %s does not refine observations", est, budget, r.settings.Strategy))
		}
		return nil
	}
	if err := r.refine(ctx); err != nil {
		return err
	}
	for est = size(); est > budget; est = size() {
		if !r.dropOldestNote() {
			break
		}
		r.warn(r.pad.turn, "", fmt.Sprintf("even refined, the observations do not fit the context budget of %d tokens: the oldest refined note was dropped", budget))
	}
	if est > budget {
		est = r.trimNewest(budget, size)
	}
	if est > budget && !r.refinement.warnedBudget {
		r.refinement.warnedBudget = true
		r.warn(r.pad.turn, "", fmt.Sprintf("the prompt (about %d tokens) still passes the context budget of %d tokens with only the newest observation left whole", est, budget))
	}
	return nil
}

// refine condenses every earlier observation not yet refined (all but the
// newest) into one note that replaces the first of them. A follow-up's
// documents carried from its thread count as the earliest observation:
// while they are not yet condensed they go into the note too, which then
// takes their place in the step prompt's head.
func (r *run) refine(ctx context.Context) error {
	thread := r.pendingThreadDocs()
	if len(r.refinement.spans) < 2 && (!thread || len(r.refinement.spans) < 1) {
		return nil
	}
	scratch := r.pad.scratch.String()
	var idx, steps []int
	var text strings.Builder
	before := 0
	if thread {
		before += len(r.refinement.threadDocs)
		text.WriteString(r.refinement.threadDocs)
	}
	for i, sp := range r.refinement.spans[:len(r.refinement.spans)-1] {
		if sp.refined {
			continue
		}
		idx = append(idx, i)
		if len(steps) == 0 || steps[len(steps)-1] != sp.step {
			steps = append(steps, sp.step)
		}
		obs := scratch[sp.start:sp.end]
		before += len(obs)
		text.WriteString(obs)
	}
	if len(idx) == 0 && !thread {
		return nil
	}
	bare, err := r.prompts.Refine(prompts.RefineData{Question: r.req.Question, Query: r.refinement.lastQuery})
	if err != nil {
		return &FatalError{Err: err}
	}
	build := func() (llm.Request, error) {
		// The refinement prompt itself stays within the budget (fit.go).
		prompt, err := r.prompts.Refine(prompts.RefineData{Question: r.req.Question, Query: r.refinement.lastQuery, Observations: r.boundText(text.String(), r.count(bare))})
		if err != nil {
			return llm.Request{}, &FatalError{Err: err}
		}
		return llm.Request{Purpose: llm.PurposeRefine, Prompt: prompt, Options: r.options()}, nil
	}
	resp, err := r.sendFitted(ctx, r.eng.cfg.LLM, r.pad.turn, build)
	if err != nil {
		return err
	}
	note := strings.TrimSpace(textsafe.ForPrompt(resp.Text))
	if note == "" {
		r.warn(r.pad.turn, "", "the model returned an empty refinement; the observations were kept as they were")
		return nil
	}
	note = fmt.Sprintf("(note condensed from %s)\n%s\n", refinedFrom(thread, steps), note)
	repl := map[int]string{}
	threadDocs := 0
	if thread {
		// The note takes the carried documents' place in the head; the
		// earlier observations of the turn point up to it.
		r.pad.head = strings.Replace(r.pad.head, r.refinement.threadDocs, note, 1)
		r.refinement.threadDocs, r.refinement.threadNote = "", note
		threadDocs = r.refinement.threadDocCount
	}
	for j, i := range idx {
		r.refinement.spans[i].refined = true
		if j == 0 && !thread {
			repl[i] = note
			r.refinement.spans[i].note = true
		} else {
			repl[i] = refinedAway
		}
	}
	r.replaceSpans(repl)
	r.tally.counts.Refinements++
	r.emit(Event{Step: r.pad.turn, Payload: Refinement{BeforeChars: before, AfterChars: len(note), Steps: steps, ThreadDocs: threadDocs}})
	return nil
}

// pendingThreadDocs reports whether a follow-up's carried documents are
// still whole in the step prompt's head.
func (r *run) pendingThreadDocs() bool {
	d := r.refinement.threadDocs
	return d != "" && strings.Contains(r.pad.head, d)
}

// refinedFrom names what a refinement note was condensed from.
func refinedFrom(thread bool, steps []int) string {
	obs := "the observations of steps " + joinInts(steps)
	switch {
	case thread && len(steps) == 0:
		return "the documents found earlier in this conversation"
	case thread:
		return "the documents found earlier in this conversation and " + obs
	}
	return obs
}

// dropOldestNote replaces the oldest refinement note still in the
// scratchpad; false when there is none.
func (r *run) dropOldestNote() bool {
	if n := r.refinement.threadNote; n != "" && strings.Contains(r.pad.head, n) {
		r.pad.head = strings.Replace(r.pad.head, n, droppedNote, 1)
		r.refinement.threadNote = ""
		return true
	}
	for i, sp := range r.refinement.spans[:max(len(r.refinement.spans)-1, 0)] {
		if sp.note && !sp.dropped {
			r.refinement.spans[i].dropped = true
			r.replaceSpans(map[int]string{i: droppedNote})
			return true
		}
	}
	return false
}

// replaceSpans rewrites the given observations' texts in the scratchpad and
// moves the later spans accordingly.
func (r *run) replaceSpans(repl map[int]string) {
	old := r.pad.scratch.String()
	var b strings.Builder
	pos, shift := 0, 0
	for i := range r.refinement.spans {
		sp := &r.refinement.spans[i]
		start, end := sp.start, sp.end
		sp.start += shift
		sp.end += shift
		text, ok := repl[i]
		if !ok {
			continue
		}
		b.WriteString(old[pos:start])
		b.WriteString(text)
		pos = end
		shift += len(text) - (end - start)
		sp.end = sp.start + len(text)
	}
	b.WriteString(old[pos:])
	r.pad.scratch.Reset()
	r.pad.scratch.WriteString(b.String())
}

func joinInts(n []int) string {
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}
