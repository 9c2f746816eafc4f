package engine

import (
	"context"
	"strings"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
)

// The retrieval gate (SlimPLM, SmartRAG; zero-shot, prompted): before any
// search, the proxy model drafts a heuristic answer from what it knows and
// judges whether retrieval is needed. If not, the main model answers
// directly and nothing is searched; if so, the draft's uncertain claims
// (or one rewritten query) become the first searches.

// gateSchema is the structured output of the necessity judgment.
var gateSchema = []byte(`{"type":"object","properties":{"analysis":{"type":"string"},"retrieve":{"type":"boolean"}},"required":["analysis","retrieve"]}`)

// decideSchema is SmartRAG's retrieve-or-answer decision.
var decideSchema = []byte(`{"type":"object","properties":{"analysis":{"type":"string"},"retrieve":{"type":"boolean"},"query":{"type":"string"}},"required":["analysis","retrieve","query"]}`)

// maxGateQueries bounds the claim queries of one gate.
const maxGateQueries = 3

// gateQueries says how a gate that wants retrieval writes its queries.
type gateQueries int

const (
	gateClaims  gateQueries = iota // SlimPLM: one query per uncertain claim
	gateRewrite                    // SmartRAG: one rewritten query
)

// gateResult is the gate's decision.
type gateResult struct {
	Retrieve bool
	Queries  []string
}

// callProxy runs one call on the proxy model and counts it as a proxy call.
func (r *run) callProxy(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.Options = r.options()
	r.phase.proxying = true
	defer func() { r.phase.proxying = false }()
	return r.call(ctx, r.eng.cfg.Proxy, req, 0)
}

func (r *run) countProxy(resp llm.Response) {
	r.tally.counts.ProxyCalls++
	r.tally.counts.ProxyPromptTokens += resp.PromptTokens
	r.tally.counts.ProxyOutputTokens += resp.OutputTokens
}

// gate runs the heuristic draft, the necessity judgment and, when
// retrieval is needed, the query writing; it emits the gate event.
func (r *run) gate(ctx context.Context, how gateQueries) (gateResult, error) {
	data := prompts.GateData{Question: r.req.Question, Max: maxGateQueries}
	prompt, err := r.prompts.GateHeuristic(data)
	if err != nil {
		return gateResult{}, &FatalError{Err: err}
	}
	resp, err := r.callProxy(ctx, llm.Request{Purpose: llm.PurposeJudge, Prompt: prompt})
	if err != nil {
		return gateResult{}, err
	}
	heuristic := strings.TrimSpace(resp.Text)
	data.Heuristic = textsafe.ForPrompt(heuristic)
	if prompt, err = r.prompts.GateNeed(data); err != nil {
		return gateResult{}, &FatalError{Err: err}
	}
	if resp, err = r.callProxy(ctx, llm.Request{Purpose: llm.PurposeJudge, Prompt: prompt, Schema: gateSchema}); err != nil {
		return gateResult{}, err
	}
	dec := ParseGateDecision(resp.Text)
	if dec.Malformed {
		r.warn(0, "", "the retrieval gate's reply was not the requested JSON; retrieving")
	}
	res := gateResult{Retrieve: dec.Retrieve}
	if dec.Retrieve {
		render, max := r.prompts.GateClaims, maxGateQueries
		if how == gateRewrite {
			render, max = r.prompts.GateRewrite, 1
		}
		if prompt, err = render(data); err != nil {
			return gateResult{}, &FatalError{Err: err}
		}
		if resp, err = r.callProxy(ctx, llm.Request{Purpose: llm.PurposeJudge, Prompt: prompt}); err != nil {
			return gateResult{}, err
		}
		res.Queries = ParseGateQueries(resp.Text, max)
		if len(res.Queries) == 0 {
			// Every claim was known, or the reply was empty: the question
			// itself is the query.
			res.Queries = []string{r.req.Question}
		}
	}
	r.emit(Event{Payload: Gate{HeuristicAnswer: heuristic, Retrieve: res.Retrieve, Analysis: dec.Analysis, Queries: res.Queries}})
	return res, nil
}

// answerDirectly is the gate's "no retrieval" branch: the main model
// answers from what it knows, in one call.
func (r *run) answerDirectly(ctx context.Context) error {
	return r.answerWith(ctx, "")
}

// answerWith answers in one call of the main model with a rendered
// observation block (empty: no documents).
func (r *run) answerWith(ctx context.Context, block string) error {
	r.pad.turn++
	return r.answerNow(ctx, block)
}

// answerNow answers in one call of the main model at the current turn with
// a rendered observation block (empty: no documents).
func (r *run) answerNow(ctx context.Context, block string) error {
	format, err := r.prompts.AnswerFormat(r.settings.AnswerStyle)
	if err != nil {
		return &FatalError{Err: err}
	}
	prompt, err := r.prompts.Answer(prompts.AnswerData{Question: r.req.Question, Documents: r.pad.thread + block, AnswerFormat: format})
	if err != nil {
		return &FatalError{Err: err}
	}
	resp, err := r.call(ctx, r.eng.cfg.LLM, llm.Request{Purpose: llm.PurposeAnswer, Prompt: prompt, Stop: stepStop, Options: r.options()}, r.pad.turn)
	if err != nil {
		return err
	}
	out := ParseStep(resp.Text)
	if !out.HasAnswer || out.Answer == "" {
		out.HasAnswer = true
		out.Answer = strings.TrimSpace(resp.Text)
	}
	r.answer(out, string(llm.PurposeAnswer))
	return nil
}
