package engine

import (
	"context"
	"sort"

	"github.com/prefrag/prefrag/sources"
)

// Strategy names. Baselines share the engine's machinery: same prompts,
// answer format, top-k and limits (DESIGN.md, "Baselines").
const (
	StrategyPrefRAG             = "prefrag"
	StrategyPrefRAGNoJudge      = "prefrag-no-judge"
	StrategyPrefRAGNoReflection = "prefrag-no-reflection"
	StrategyPrefRAGDirect       = "prefrag-direct"
	StrategyPrefRAGNoORS        = "prefrag-no-ors"
	StrategyReAct               = "react"
	StrategyReActMix            = "react-mix"
	StrategyNoRetrieval         = "no-retrieval"
	StrategyVanillaLocal        = "vanilla-local"
	StrategyVanillaWeb          = "vanilla-web"
	StrategyVanillaMix          = "vanilla-mix"
)

// RetrievalMode says where a strategy's documents come from.
type RetrievalMode string

const (
	// RetrievalNone: no retrieval, the model answers from what it knows
	// (single-shot only).
	RetrievalNone RetrievalMode = "none"
	// RetrievalLocal: the first local source (single-shot only).
	RetrievalLocal RetrievalMode = "local"
	// RetrievalWeb: the first web source (single-shot only).
	RetrievalWeb RetrievalMode = "web"
	// RetrievalMix: local ⊕ web concatenated — single-shot: the first
	// source of each kind; loop: every source on every action.
	RetrievalMix RetrievalMode = "mix"
	// RetrievalPreferred: the preferred (local) source first; with Judge
	// the selection judge may switch an action to the next source (loop
	// only).
	RetrievalPreferred RetrievalMode = "preferred"
	// RetrievalChosen: one Search_<name> tool per source, the model's tool
	// choice decides the source (loop only).
	RetrievalChosen RetrievalMode = "chosen"
)

// Strategy is one row of the strategy table: how a run retrieves and
// answers. Adding a strategy is one row of strategyTable; a strategy that
// needs behaviour the fields cannot express sets run (in a file of its
// own).
type Strategy struct {
	// Name is the --strategy value.
	Name string
	// Label is the strategy's name in the paper's tables (eval reports).
	Label string
	// Loop: the multi-step Thought/Action/Observation loop; false: retrieve
	// once with the question, answer in one call.
	Loop bool
	// Retrieval says where documents come from.
	Retrieval RetrievalMode
	// Judge: the selection judge decides whether the preferred source's
	// documents suffice (Pref-AR).
	Judge bool
	// Reflect: self-reflection supplement on a negative answer label.
	Reflect bool
	// Preference: state the source preference in the step prompt
	// (PrefRAG-Direct).
	Preference bool
	// Refine: refine earlier observations into a note when the prompt
	// would pass the context budget (MSPR's ORS, refine.go); without it a
	// run only warns.
	Refine bool
	// EvalDefault: one of the paper's Table 1 rows `prefrag eval` runs when
	// no --strategies is given.
	EvalDefault bool
	// run, when set, replaces the runner the fields select.
	run strategyFunc
}

// strategyTable lists every strategy in the paper's row order (baselines
// first, PrefRAG last).
var strategyTable = []Strategy{
	{Name: StrategyNoRetrieval, Label: "No retrieval", Retrieval: RetrievalNone, EvalDefault: true},
	{Name: StrategyVanillaLocal, Label: "Vanilla w/ LR", Retrieval: RetrievalLocal, EvalDefault: true},
	{Name: StrategyVanillaWeb, Label: "Vanilla w/ WR", Retrieval: RetrievalWeb, EvalDefault: true},
	{Name: StrategyVanillaMix, Label: "Vanilla_Mix w/ LR ⊕ WR", Retrieval: RetrievalMix, EvalDefault: true},
	{Name: StrategyReAct, Label: "ReAct w/ LR & WR", Loop: true, Retrieval: RetrievalChosen, EvalDefault: true},
	{Name: StrategyReActMix, Label: "ReAct_Mix w/ LR ⊕ WR", Loop: true, Retrieval: RetrievalMix, EvalDefault: true},
	// Preference only stated in the prompt; the model picks the tool.
	{Name: StrategyPrefRAGDirect, Label: "PrefRAG-Direct", Loop: true, Retrieval: RetrievalChosen, Reflect: true, Preference: true},
	// "w/o Pref-AR": the preferred source answers every action, no judge.
	{Name: StrategyPrefRAGNoJudge, Label: "PrefRAG w/o Pref-AR", Loop: true, Retrieval: RetrievalPreferred, Reflect: true, Refine: true},
	{Name: StrategyPrefRAGNoReflection, Label: "PrefRAG w/o self-reflection", Loop: true, Retrieval: RetrievalPreferred, Judge: true, Refine: true},
	// "w/o ORS": no observation refinement; over the budget it only warns.
	{Name: StrategyPrefRAGNoORS, Label: "PrefRAG w/o ORS", Loop: true, Retrieval: RetrievalPreferred, Judge: true, Reflect: true},
	{Name: StrategyPrefRAG, Label: "PrefRAG", Loop: true, Retrieval: RetrievalPreferred, Judge: true, Reflect: true, Refine: true, EvalDefault: true},
	// Retrieval gate (gate.go): the proxy model's heuristic answer and
	// necessity judgment before any search.
	{Name: StrategySlimPLM, Label: "SlimPLM (prompted)", Retrieval: RetrievalPreferred, run: runSlimPLM},
	{Name: StrategySmartRAG, Label: "SmartRAG (prompted)", Retrieval: RetrievalPreferred, run: runSmartRAG},
	{Name: StrategyPrefRAGGated, Label: "PrefRAG + gate", Loop: true, Retrieval: RetrievalPreferred, Judge: true, Reflect: true, Refine: true, run: runPrefRAGGated},
}

// Strategies lists the strategy table in the paper's row order.
func Strategies() []Strategy { return append([]Strategy(nil), strategyTable...) }

// LookupStrategy finds a strategy by name.
func LookupStrategy(name string) (Strategy, bool) {
	for _, s := range strategyTable {
		if s.Name == name {
			return s, true
		}
	}
	return Strategy{}, false
}

// StrategyNames lists the known strategies, sorted.
func StrategyNames() []string {
	names := make([]string, 0, len(strategyTable))
	for _, s := range strategyTable {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	return names
}

// kinds is what a single-shot strategy retrieves, in order.
func (s Strategy) kinds() []sources.Kind {
	switch s.Retrieval {
	case RetrievalLocal:
		return []sources.Kind{sources.KindLocal}
	case RetrievalWeb:
		return []sources.Kind{sources.KindWeb}
	case RetrievalMix:
		return []sources.Kind{sources.KindLocal, sources.KindWeb}
	}
	return nil
}

// runner is what runs the strategy.
func (s Strategy) runner() strategyFunc {
	switch {
	case s.run != nil:
		return s.run
	case s.Loop:
		return func(ctx context.Context, r *run) error { return runLoop(ctx, r, s) }
	}
	kinds := s.kinds()
	return func(ctx context.Context, r *run) error { return runSingle(ctx, r, kinds) }
}
