package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/eval/enginebench"
	"github.com/prefrag/prefrag/internal/textsafe"
)

const benchEngineUsage = "bench engine [--data FILE] [--limit N] [--strategies a,b] [--hops N] [--holdout F] [--no-tokens] [--json]"

// runBenchEngine measures the engine's own cost per question with a
// zero-latency in-process model and in-memory BM25 sources: overhead per
// LLM call and per question, allocations, and how much of each reasoning
// prompt repeats the previous one (prompt-cache reuse).
func runBenchEngine(e *env, args []string) error {
	fs := flag.NewFlagSet("bench engine", flag.ContinueOnError)
	data := fs.String("data", "", "QA file with paragraphs (e.g. the HotpotQA pool); default: synthetic two-hop questions")
	limit := fs.Int("limit", 0, "use only the first N questions (0: all; synthetic: 200)")
	strategies := fs.String("strategies", engine.StrategyPrefRAG, "comma-separated strategies to measure")
	hops := fs.Int("hops", 2, "searches the scripted model makes before answering")
	holdout := fs.Float64("holdout", 0.5, "fraction of supporting paragraphs moved from the local source to the in-memory web source")
	k := fs.Int("k", 5, "documents per retrieval")
	maxSteps := fs.Int("max-steps", 3, "soft step limit")
	noTokens := fs.Bool("no-tokens", false, "do not stream token deltas into the engine")
	asJSON := fs.Bool("json", false, "print one JSON object per strategy")
	know := fs.Int("oracle-knows", 0, "the scripted model knows every N-th answer without documents (the retrieval gate's direct answers); 0: none")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, benchEngineUsage)
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("bench engine takes no positional arguments (got %q)", pos[0])
	}
	if *holdout < 0 || *holdout > 1 {
		return usagef("--holdout must be between 0 and 1")
	}
	var qs []eval.Question
	source := "synthetic two-hop questions"
	if *data != "" {
		ds, err := eval.LoadFile(*data)
		if err != nil {
			return usagef("%v", err)
		}
		for _, q := range ds.Questions {
			if len(q.Paragraphs) > 0 {
				qs = append(qs, q)
			}
		}
		if len(qs) == 0 {
			return usagef("%s has no questions with paragraphs to build the in-memory sources from", *data)
		}
		source = ds.Name
	} else {
		n := 200
		if *limit > 0 {
			n = *limit
		}
		qs = enginebench.Synthetic(n, 1)
	}
	if *limit > 0 && *limit < len(qs) {
		qs = qs[:*limit]
	}
	names, err := evalStrategiesList(*strategies)
	if err != nil {
		return err
	}
	for _, name := range names {
		s := engine.DefaultRunConfig()
		s.Model, s.Strategy, s.K, s.MaxSteps = "oracle", name, *k, *maxSteps
		if err := s.Validate(); err != nil {
			return err
		}
		h := *holdout
		if h == 0 {
			h = -1 // enginebench: 0 means its default
		}
		r, err := enginebench.Measure(e.ctx, enginebench.Config{Questions: qs, Settings: s, Hops: *hops, Holdout: h, NoTokens: *noTokens, Know: *know})
		if err != nil {
			return err
		}
		if *asJSON {
			b, _ := json.Marshal(struct {
				Data string `json:"data"`
				enginebench.Result
			}{source, r})
			fmt.Fprintln(e.stdout, string(b))
			continue
		}
		printBenchEngine(e, source, r)
	}
	return nil
}

// evalStrategiesList parses a comma-separated list of strategy names,
// dropping repeats.
func evalStrategiesList(list string) ([]string, error) {
	known := map[string]bool{}
	for _, n := range engine.StrategyNames() {
		known[n] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n == "" || seen[n] {
			continue
		}
		if !known[n] {
			return nil, usagef("unknown strategy %q (one of %s)", n, strings.Join(engine.StrategyNames(), ", "))
		}
		seen[n] = true
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, usagef("no strategy named")
	}
	return out, nil
}

func printBenchEngine(e *env, source string, r enginebench.Result) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Nanoseconds())/1e6) }
	w := e.stdout
	fmt.Fprintf(w, "engine benchmark: %s on %s (%d questions), zero-latency in-process model, in-memory BM25 sources\n",
		r.Strategy, textsafe.ForTerminal(source), r.Runs)
	fmt.Fprintf(w, "  LLM calls        %d (step %d, judge %d, forced %d); retrievals %d local, %d web; %d events\n",
		r.LLMCalls, r.StepCalls, r.Judge, r.Forced, r.Local, r.Web, r.Events)
	fmt.Fprintf(w, "  wall             %s = model %s + retrieval %s + engine %s\n", ms(r.Wall), ms(r.Model), ms(r.Retrieval), ms(r.Overhead))
	verdict := "within"
	if r.OverheadPerCall >= time.Millisecond {
		verdict = "ABOVE"
	}
	fmt.Fprintf(w, "  engine overhead  %s per LLM call (%s the 1 ms target), %s per question\n", ms(r.OverheadPerCall), verdict, ms(r.OverheadPerQuestion))
	fmt.Fprintf(w, "  allocations      %.0f per question (%.0f KiB), %.0f per LLM call (model and searches included)\n",
		r.AllocsPerQuestion, r.BytesPerQuestion/1024, r.AllocsPerCall)
	if r.Transitions == 0 {
		fmt.Fprintln(w, "  prompt reuse     n/a: one LLM call per question, no consecutive reasoning prompts")
		return
	}
	reuse := "meets"
	if r.PrefixReuse < 0.95 {
		reuse = "BELOW"
	}
	fmt.Fprintf(w, "  prompt reuse     %.4f of each previous reasoning prompt repeated byte for byte (min %.4f, %s the 0.95 target; %d transitions)\n",
		r.PrefixReuse, r.PrefixReuseMin, reuse, r.Transitions)
	fmt.Fprintf(w, "                   %.4f of each new reasoning prompt servable from a cache of the previous prompt and its output\n", r.CachedShare)
}
