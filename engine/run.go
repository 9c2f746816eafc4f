package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
	"github.com/prefrag/prefrag/sources"
)

type strategyFunc func(ctx context.Context, r *run) error

// judgeSchema is the structured output asked of the selection judge.
var judgeSchema = []byte(`{"type":"object","properties":{"analysis":{"type":"string"},"status":{"type":"boolean"}},"required":["analysis","status"]}`)

// stepStop ends a reasoning step before the model invents an observation.
var stepStop = []string{"Observation:"}

// run is the state of one question being answered, in parts named for
// what they hold.
type run struct {
	eng      *Engine
	req      Request
	settings Settings     // the request's settings, Model defaulted
	prompts  *prompts.Set // the templates every prompt is rendered from
	sources  runSources
	stamp    eventStamp
	pad      scratchpad
	ledger   docLedger
	tally    tally
	phase    runPhase
	outcome  runOutcome
	// refinement is the observation-refinement and prompt-budget state
	// (refine.go).
	refinement refineState
	// privacy is the run's privacy (privacy.go): its settings', or for a
	// follow-up the thread's where stricter.
	privacy Privacy
	// leaks caches the never-leave corpora's distinctive strings (leak.go).
	leaks leakState
}

// runSources are the sources a run may search, and the user's consent.
type runSources struct {
	local []Source
	web   []Source
	// allowedForRun holds the kinds of source the user allowed for the
	// rest of the run, deniedForRun those declined for it (an answer for
	// the run covers the kind it was asked about: allowing an MCP server
	// over the network does not allow the web); deniedQueries are the
	// queries declined one by one (a declined query is not asked again).
	allowedForRun map[sources.Kind]bool
	deniedForRun  map[sources.Kind]bool
	deniedQueries map[string]bool
}

// eventStamp numbers the events a run emits.
type eventStamp struct {
	seq int
	// threadTurn is the turn of a follow-up (0 for a session's first
	// question).
	threadTurn int
}

// scratchpad is the reasoning prompt: a fixed head, then the append-only
// record of steps and observations.
type scratchpad struct {
	turn    int // display step number of the current reasoning call
	head    string
	scratch strings.Builder
	// thread is the thread block of a follow-up's prompts (thread.go).
	thread string
}

// docLedger is every document the model has seen.
type docLedger struct {
	// docs are numbered from 1 in order of first entry.
	docs   []Document
	docNum map[string]int
	// safe caches each document made safe for a prompt.
	safe map[string]prompts.ObservedDoc
	// frames caches the tokens of an observation's frame around a
	// document, by the width of its number (thread.go).
	frames map[int]int
	// obtained is the full text of every observation so far (judge input).
	obtained strings.Builder
}

// tally is what a run counts and has warned about once.
type tally struct {
	start     time.Time
	counts    Counts
	warnedCtx bool
}

// runPhase says what the run is in the middle of.
type runPhase struct {
	// reflecting is set while the reflection supplement searches; pending
	// holds the documents it retrieved so far (not yet in the context).
	reflecting bool
	pending    []Document
	// proxying is set during the retrieval gate's calls (gate.go).
	proxying bool
	// seeds are searches run before the loop's first step (gate.go).
	seeds []string
}

// runOutcome is the answer so far.
type runOutcome struct {
	lastAnswer *StepOutput
	forced     bool
}

func newRun(e *Engine, req Request) *run {
	r := &run{eng: e, req: req, settings: req.Settings, prompts: e.cfg.Prompts}
	r.tally.start = e.cfg.Now()
	r.ledger.docNum = map[string]int{}
	r.ledger.safe = map[string]prompts.ObservedDoc{}
	r.sources.local, r.sources.web = e.sourceList()
	if th := req.Thread; th != nil {
		r.stamp.threadTurn, r.stamp.seq = th.Turn, th.LastSeq
	}
	r.privacy = applyThreadPrivacy(&r.settings, req.Thread, req.Explicit)
	if r.settings.Model == "" {
		r.settings.Model = "unknown"
	}
	r.startCalibration()
	return r
}

// emit stamps and delivers an event. Token events reuse the current seq so
// stored events stay numbered 1, 2, 3… without gaps.
func (r *run) emit(ev Event) {
	if _, token := ev.Payload.(Token); !token {
		r.stamp.seq++
	}
	ev = sanitize(ev)
	ev.Session = r.req.SessionID
	ev.Seq = r.stamp.seq
	if r.stamp.threadTurn > 1 {
		ev.Turn = r.stamp.threadTurn
	}
	ev.Time = r.eng.cfg.Now()
	if r.req.Emit != nil {
		r.req.Emit(ev)
	}
}

func (r *run) warn(step int, source, msg string) {
	r.emit(Event{Step: step, Payload: Notice{Source: source, Message: msg, Fatal: false}})
}

func (r *run) options() llm.Options {
	return llm.Options{NumCtx: r.settings.NumCtx, Temperature: r.settings.Temperature, TopP: r.settings.TopP, Seed: r.settings.Seed}
}

// call runs one LLM request, streaming its tokens as events and counting it.
// A stream that dies is retried once; every other failure is fatal.
func (r *run) call(ctx context.Context, model LLM, req llm.Request, step int) (llm.Response, error) {
	role := string(req.Purpose)
	onToken := func(delta string) {
		r.emit(Event{Step: step, Payload: Token{Role: role, Text: delta}})
	}
	if req.Purpose == llm.PurposeJudge || req.Purpose == llm.PurposeRefine || req.Purpose == purposeRewrite || req.Purpose == purposeVerify {
		onToken = nil
	}
	if req.Options.NumPredict == 0 {
		req.Options.NumPredict = r.settings.OutputLimit(req.Purpose == llm.PurposeJudge)
	}
	var resp llm.Response
	var err error
	r.refreshContext()
	if err := r.checkFits(ctx, model, req); err != nil {
		return resp, &FatalError{Err: err}
	}
	for attempt := 0; attempt < 2; attempt++ {
		t0 := time.Now()
		resp, err = model.Generate(ctx, req, onToken)
		r.tally.counts.LLMMillis += time.Since(t0).Milliseconds()
		r.countCall(req.Purpose, resp)
		if err == nil {
			r.notePrompt(req, resp.PromptTokens)
			r.measure(model, req.Prompt, resp.PromptTokens, true)
		}
		if err == nil || ctx.Err() != nil {
			break
		}
		// Only a failed connection or stream (or a 5xx) may go better a
		// second time; a 4xx, an overflowing prompt or a missing model
		// would be answered the same way.
		var se *llm.ServerError
		if !errors.As(err, &se) || !se.Retryable() || attempt == 1 {
			break
		}
		r.warn(step, "", fmt.Sprintf("the LLM server failed (%v); retrying once", err))
	}
	if ctx.Err() != nil {
		return resp, ctx.Err()
	}
	if err != nil {
		// A prompt refused as over the context, or cut, tells its real
		// size (refusal.go).
		r.learnRefusal(req, err)
		return resp, &FatalError{Err: err}
	}
	if resp.Truncated() {
		msg := fmt.Sprintf("the model hit the generation limit (%d tokens) and its %s reply was cut there", req.Options.NumPredict, req.Purpose)
		if resp.CutByClient {
			msg += "; the server did not stop at the limit, so prefrag closed the stream"
		}
		r.warn(step, "", msg)
	}
	if ctxTokens := r.settings.ContextTokens(); !r.tally.warnedCtx && ctxTokens > 0 && resp.PromptTokens > ctxTokens*9/10 {
		r.tally.warnedCtx = true
		fix := "raise --num-ctx"
		if r.settings.ServerCtx > 0 {
			fix = "give the server a larger context per slot"
		}
		r.warn(step, "", fmt.Sprintf("the prompt uses %d of %d context tokens; %s or the server will cut the scratchpad", resp.PromptTokens, ctxTokens, fix))
	}
	return resp, nil
}

func (r *run) countCall(p llm.Purpose, resp llm.Response) {
	r.tally.counts.LLMCalls++
	switch {
	case r.phase.proxying:
		r.countProxy(resp)
	case p == llm.PurposeJudge:
		r.tally.counts.JudgeCalls++
	case p == llm.PurposeForced:
		r.tally.counts.ForcedCalls++
	case p == llm.PurposeRefine: // counted as Refinements
	case p == purposeRewrite:
		r.tally.counts.RewriteCalls++
	case p == purposeVerify:
		r.tally.counts.VerifyCalls++
	default:
		r.tally.counts.StepCalls++
	}
	r.tally.counts.PromptTokens += resp.PromptTokens
	r.tally.counts.CachedPromptTokens += resp.CachedPromptTokens
	r.tally.counts.OutputTokens += resp.OutputTokens
}

// search runs one retrieval and emits its event. Source trouble is not an
// error: it is reported as an error event and as a note for the model.
func (r *run) search(ctx context.Context, step int, src Source, query string) ([]Document, string, error) {
	t0 := time.Now()
	r.refinement.lastQuery = query
	var docs []Document
	var err error
	cached := false
	es, embeds := src.(EmbeddingSource)
	var calls0, tokens0 int64
	if embeds {
		calls0, tokens0 = es.EmbedCounts()
	}
	if cs, ok := src.(CachingSource); ok {
		docs, cached, err = cs.SearchCached(ctx, query, r.settings.K)
	} else {
		docs, err = src.Search(ctx, query, r.settings.K)
	}
	if embeds {
		calls, tokens := es.EmbedCounts()
		r.tally.counts.EmbedCalls += int(calls - calls0)
		r.tally.counts.EmbedTokens += int(tokens - tokens0)
	}
	for _, d := range docs {
		cached = cached || d.Cached
	}
	r.tally.counts.RetrievalMillis += time.Since(t0).Milliseconds()
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	switch k := src.Kind(); {
	case k == sources.KindWeb:
		r.tally.counts.WebRetrievals++
	case k.IsMCP():
		r.tally.counts.MCPRetrievals++
	default:
		r.tally.counts.LocalRetrievals++
	}
	if err != nil {
		outcome, msg := RetrievalOutcome(err), textsafe.ForTerminal(err.Error())
		if outcome == OutcomeTruncated && len(docs) > 0 || outcome == OutcomeDegraded {
			// Partial results of a cut answer are used, and said to be
			// partial; so are the results of a search by words only.
			docs = r.sourced(src, docs)
			r.emit(Event{Step: step, Payload: Retrieval{Source: src.Name(), Query: query, Docs: docs, Outcome: outcome, Note: msg, Reflection: r.phase.reflecting, Cached: cached}})
			r.warn(step, src.Name(), msg)
			return docs, "", nil
		}
		note := sourceTrouble(src, err)
		r.emit(Event{Step: step, Payload: Retrieval{Source: src.Name(), Query: query, Outcome: outcome, Note: msg, Reflection: r.phase.reflecting}})
		r.warn(step, src.Name(), msg)
		return nil, note, nil
	}
	docs = r.sourced(src, docs)
	r.emit(Event{Step: step, Payload: Retrieval{Source: src.Name(), Query: query, Docs: docs, Reflection: r.phase.reflecting, Cached: cached}})
	return docs, "", nil
}

// sourced cuts docs to k and names their source where they do not.
func (r *run) sourced(src Source, docs []Document) []Document {
	if len(docs) > r.settings.K {
		docs = docs[:r.settings.K]
	}
	for i := range docs {
		if docs[i].Source == "" {
			docs[i].Source = src.Name()
		}
	}
	return docs
}

// number gives each document its citation number, reusing the number of a
// document seen before.
func (r *run) number(docs []Document) []prompts.ObservedDoc {
	out := make([]prompts.ObservedDoc, len(docs))
	for i, d := range docs {
		n, ok := r.ledger.docNum[docKey(d)]
		if !ok {
			r.ledger.docs = append(r.ledger.docs, d)
			n = len(r.ledger.docs)
			r.ledger.docNum[docKey(d)] = n
		}
		out[i] = r.promptDoc(n, d)
	}
	return out
}

// promptDoc is a document made safe for a prompt, computed once per
// document and run (documents recur: repeated retrievals, judge previews).
func (r *run) promptDoc(n int, d Document) prompts.ObservedDoc {
	key := docKey(d)
	od, ok := r.ledger.safe[key]
	if !ok {
		text, cut := r.capDoc(d)
		od = prompts.ObservedDoc{Title: textsafe.ForPrompt(d.Title), Text: textsafe.ForPrompt(text) + cut}
		r.ledger.safe[key] = od
	}
	od.Num = n
	return od
}

// preview renders documents as they would be numbered, without numbering
// them (the judge's view of the new top-k).
func (r *run) preview(docs []Document) string {
	next := len(r.ledger.docs)
	seen := map[string]int{}
	obs := make([]prompts.ObservedDoc, len(docs))
	for i, d := range docs {
		n, ok := r.ledger.docNum[docKey(d)]
		if !ok {
			if n, ok = seen[docKey(d)]; !ok {
				next++
				n = next
				seen[docKey(d)] = n
			}
		}
		obs[i] = r.promptDoc(n, d)
	}
	if len(obs) == 0 {
		return ""
	}
	text, _ := r.prompts.Observation(prompts.ObservationData{Docs: obs})
	return strings.TrimRight(text, "\n")
}

func docKey(d Document) string { return d.Source + "\x00" + d.ID }

// observe puts documents into the reasoning context as the observation of
// a step, and emits the observation event.
func (r *run) observe(step int, source string, docs []Document, notes []string, discarded []Document) error {
	obs := r.number(docs)
	if err := r.appendObservation(obs, notes, docs); err != nil {
		return err
	}
	o := Observation{Source: source, Note: strings.Join(notes, "; ")}
	for i, d := range docs {
		o.DocIDs = append(o.DocIDs, d.ID)
		o.DocNums = append(o.DocNums, obs[i].Num)
	}
	for _, d := range discarded {
		o.Discarded = append(o.Discarded, d.ID)
	}
	r.emit(Event{Step: step, Payload: o})
	return nil
}

// appendObservation writes numbered documents into the scratchpad and into
// the judge's "already obtained" text, and counts them as used.
func (r *run) appendObservation(obs []prompts.ObservedDoc, notes []string, docs []Document) error {
	text, err := r.prompts.Observation(prompts.ObservationData{Docs: obs, Notes: notes})
	if err != nil {
		return &FatalError{Err: err}
	}
	r.pad.scratch.WriteString("\nObservation: ")
	start := r.pad.scratch.Len()
	r.pad.scratch.WriteString(text)
	r.recordObservation(start, obs, notes)
	if len(obs) > 0 {
		block, _ := r.prompts.Observation(prompts.ObservationData{Docs: obs})
		r.ledger.obtained.WriteString(block)
	}
	r.countUsed(docs)
	return nil
}

// countUsed counts the retrievals whose documents entered the context.
func (r *run) countUsed(docs []Document) {
	bySource := map[string]bool{}
	for _, d := range docs {
		bySource[d.Source] = true
	}
	for src := range bySource {
		r.tally.counts.UsedRetrievals++
		if sources.IsCorpus(src) {
			r.tally.counts.UsedLocalRetrievals++
		}
	}
	r.tally.counts.UsedDocs += len(docs)
}

// finish emits the final event (or the fatal error event) and builds the
// result.
func (r *run) finish(ctx context.Context, err error) (Result, error) {
	r.keepCalibration()
	r.tally.counts.TotalMillis = r.eng.cfg.Now().Sub(r.tally.start).Milliseconds()
	res := Result{Forced: r.outcome.forced, Counts: r.tally.counts}
	if r.outcome.lastAnswer != nil {
		res.Answer = r.outcome.lastAnswer.Answer
		res.Label = r.outcome.lastAnswer.Label
	}
	var fatal *FatalError
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		res.Cancelled = true
		err = fmt.Errorf("%w: %w", ErrCancelled, ctx.Err())
	default:
		// The run failed: its calls and tokens are counted all the same,
		// in the fatal error event.
		if !errors.As(err, &fatal) {
			err = &FatalError{Err: err}
		}
		c := r.tally.counts
		r.emit(Event{Payload: Notice{Message: textsafe.ForTerminal(err.Error()), Fatal: true, Counts: &c}})
		return res, err
	}
	f := Final{Answer: res.Answer, Forced: res.Forced, Cancelled: res.Cancelled, Label: res.Label}
	res.Citations, res.InvalidCitations, f.Sources, f.SourceNums = numberedSources(Citations(res.Answer), r.ledger.docs)
	f.Citations, f.InvalidCitations = res.Citations, res.InvalidCitations
	if cited := Citations(res.Answer); !res.Cancelled && len(cited) > 0 {
		ev := answerEvidence(res.Answer, cited, r.ledger.docs)
		if r.settings.VerifyClaims {
			ev = r.verifyClaims(ctx, ev)
			res.Counts = r.tally.counts
		}
		r.emit(Event{Payload: ev})
	}
	c := r.tally.counts
	f.Counts = &c
	r.emit(Event{Payload: f})
	return res, err
}

// numberedSources lists every document of the context (docs, numbered
// from 1) with its number: the cited ones first, in citation order, then
// the others in number order. Cited numbers no document had are invalid.
func numberedSources(cited []int, docs []Document) (valid, invalid []int, list []Document, nums []int) {
	isCited := map[int]bool{}
	for _, n := range cited {
		if n >= 1 && n <= len(docs) {
			valid = append(valid, n)
			isCited[n] = true
			list = append(list, withLocator(docs[n-1]))
			nums = append(nums, n)
		} else {
			invalid = append(invalid, n)
		}
	}
	for i, d := range docs {
		if !isCited[i+1] {
			list = append(list, withLocator(d))
			nums = append(nums, i+1)
		}
	}
	return valid, invalid, list, nums
}

func withLocator(d Document) Document {
	if d.Locator == "" {
		d.Locator = d.URL
	}
	return d
}

// sourceTrouble is what the model is told when a source failed: the web is
// "unavailable" (never "no results"), a corpus names itself.
func sourceTrouble(src Source, err error) string {
	msg := textsafe.ForPrompt(err.Error())
	if src.Kind() == sources.KindWeb {
		return "web unavailable: " + strings.TrimPrefix(msg, src.Name()+" unavailable: ")
	}
	if strings.HasPrefix(msg, src.Name()) {
		return msg
	}
	return src.Name() + " unavailable: " + msg
}
