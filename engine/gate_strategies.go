package engine

import (
	"context"
	"strings"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
)

// Gated strategy names.
const (
	StrategySlimPLM      = "slimplm"
	StrategySmartRAG     = "smartrag"
	StrategyPrefRAGGated = "prefrag-gated"
)

// runSlimPLM is SlimPLM, prompted: the gate; then either a direct answer
// or one search per uncertain claim of the heuristic answer and a single
// answer call over all their documents (vanilla RAG).
func runSlimPLM(ctx context.Context, r *run) error {
	g, err := r.gate(ctx, gateClaims)
	if err != nil || !g.Retrieve {
		if err != nil {
			return err
		}
		return r.answerDirectly(ctx)
	}
	var all []Document
	for _, q := range g.Queries {
		docs, err := r.gateSearch(ctx, q)
		if err != nil {
			return err
		}
		all = append(all, docs...)
	}
	block, err := r.block(all)
	if err != nil {
		return err
	}
	return r.answerWith(ctx, block)
}

// runSmartRAG is SmartRAG's decide/rewrite/answer loop, prompted: the gate
// decides and rewrites the first query; after each search the proxy model
// decides again (answer now, or the next query), at most MaxSteps
// searches; the main model answers from every document found.
func runSmartRAG(ctx context.Context, r *run) error {
	g, err := r.gate(ctx, gateRewrite)
	if err != nil || !g.Retrieve {
		if err != nil {
			return err
		}
		return r.answerDirectly(ctx)
	}
	var all []Document
	asked := map[string]bool{}
	q := g.Queries[0]
	for i := 0; i < r.settings.MaxSteps && q != "" && !asked[strings.ToLower(q)]; i++ {
		asked[strings.ToLower(q)] = true
		docs, err := r.gateSearch(ctx, q)
		if err != nil {
			return err
		}
		all = append(all, docs...)
		if i+1 == r.settings.MaxSteps {
			break
		}
		block, err := r.block(all)
		if err != nil {
			return err
		}
		prompt, err := r.prompts.GateDecide(prompts.GateData{Question: r.req.Question, Documents: block})
		if err != nil {
			return &FatalError{Err: err}
		}
		resp, err := r.callProxy(ctx, llm.Request{Purpose: llm.PurposeJudge, Prompt: prompt, Schema: decideSchema})
		if err != nil {
			return err
		}
		dec := ParseGateDecision(resp.Text)
		if dec.Malformed {
			r.warn(r.pad.turn, "", "the retrieval decision was not the requested JSON; answering from what was found")
			break
		}
		q = ""
		if dec.Retrieve {
			if qs := ParseGateQueries(dec.Query, 1); len(qs) > 0 {
				q = qs[0]
			}
		}
		ev := Gate{Retrieve: dec.Retrieve && q != "", Analysis: dec.Analysis}
		if q != "" {
			ev.Queries = []string{q}
		}
		r.emit(Event{Payload: ev})
	}
	block, err := r.block(all)
	if err != nil {
		return err
	}
	return r.answerWith(ctx, block)
}

// prefragGated is the PrefRAG row the gate fronts.
var prefragGated = Strategy{Loop: true, Retrieval: RetrievalPreferred, Judge: true, Reflect: true}

// runPrefRAGGated puts the gate in front of PrefRAG: a direct answer, or
// PrefRAG with the gate's queries as its first searches.
func runPrefRAGGated(ctx context.Context, r *run) error {
	g, err := r.gate(ctx, gateClaims)
	if err != nil || !g.Retrieve {
		if err != nil {
			return err
		}
		return r.answerDirectly(ctx)
	}
	r.phase.seeds = g.Queries
	return runLoop(ctx, r, prefragGated)
}

// runSeeds runs the gate's queries as the loop's first actions (each
// consumes a step), written into the scratchpad as if the model had asked
// for them. It returns the steps consumed.
func (r *run) runSeeds(ctx context.Context, m Strategy, tools []prompts.Tool) (int, error) {
	n := 0
	for _, q := range r.phase.seeds {
		if n == r.settings.MaxSteps || len(tools) == 0 {
			break
		}
		r.pad.turn++
		n++
		tool := tools[0].Name
		r.pad.scratch.WriteString("Thought: I should check this claim first.\nAction: " + tool + "\nAction Input: " + textsafe.ForPrompt(q) + "\n")
		r.emit(Event{Step: r.pad.turn, Payload: Action{Tool: tool, Query: q}})
		if err := r.retrieve(ctx, m, tool, q); err != nil {
			return n, err
		}
	}
	r.phase.seeds = nil
	return n, nil
}

// gateSearch is one search of a gated single-shot strategy: the preferred
// source (the first corpus, else the first web engine, after consent),
// observed as its own step.
func (r *run) gateSearch(ctx context.Context, q string) ([]Document, error) {
	r.pad.turn++
	step := r.pad.turn
	order := append(append([]Source{}, r.usable(r.sources.local)...), r.usable(r.sources.web)...)
	if len(order) == 0 {
		return nil, r.observe(step, "", nil, []string{r.nothingToSearchNote()}, nil)
	}
	src := order[0]
	ok, why, err := r.allowWeb(ctx, step, src, q, "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, r.observe(step, src.Name(), nil, notes(why), nil)
	}
	docs, note, err := r.search(ctx, step, src, q)
	if err != nil {
		return nil, err
	}
	return docs, r.observe(step, src.Name(), docs, notes(note), nil)
}

// block renders documents, each once, as one observation block with their
// context numbers.
func (r *run) block(docs []Document) (string, error) {
	seen := map[string]bool{}
	var uniq []Document
	for _, d := range docs {
		if !seen[docKey(d)] {
			seen[docKey(d)] = true
			uniq = append(uniq, d)
		}
	}
	if len(uniq) == 0 {
		return "", nil
	}
	text, err := r.prompts.Observation(prompts.ObservationData{Docs: r.number(uniq)})
	if err != nil {
		return "", &FatalError{Err: err}
	}
	return text, nil
}
