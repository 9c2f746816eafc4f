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

// benchEngineOptions are `prefrag bench engine`'s.
type benchEngineOptions struct {
	Data       string // QA file with paragraphs; "": synthetic two-hop questions
	Limit      int
	Strategies []string
	Hops       int
	Holdout    float64
	K          int
	MaxSteps   int
	NoTokens   bool
	Out        outputFlags
	Know       int // the scripted model knows every Know-th answer
}

func parseBenchEngine(e *env, args []string) (*benchEngineOptions, error) {
	fs := flag.NewFlagSet("bench engine", flag.ContinueOnError)
	o := &benchEngineOptions{}
	fs.StringVar(&o.Data, "data", "", "QA file with paragraphs (e.g. the HotpotQA pool); default: synthetic two-hop questions")
	fs.IntVar(&o.Limit, "limit", 0, "use only the first N questions (0: all; synthetic: 200)")
	strategies := fs.String("strategies", engine.StrategyPrefRAG, "comma-separated strategies to measure")
	fs.IntVar(&o.Hops, "hops", 2, "searches the scripted model makes before answering")
	fs.Float64Var(&o.Holdout, "holdout", 0.5, "fraction of supporting paragraphs moved from the local source to the in-memory web source")
	fs.IntVar(&o.K, "k", 5, "documents per retrieval")
	fs.IntVar(&o.MaxSteps, "max-steps", 3, "soft step limit")
	fs.BoolVar(&o.NoTokens, "no-tokens", false, "do not stream token deltas into the engine")
	out := bindJSON(fs, "print one JSON object per strategy")
	fs.IntVar(&o.Know, "oracle-knows", 0, "the scripted model knows every N-th answer without documents (the retrieval gate's direct answers); 0: none")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, benchEngineUsage)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	o.Out = *out
	if len(pos) > 0 {
		return nil, usagef("bench engine takes no positional arguments (got %q)", pos[0])
	}
	if o.Holdout < 0 || o.Holdout > 1 {
		return nil, usagef("--holdout must be between 0 and 1")
	}
	o.Strategies, err = evalStrategiesList(*strategies)
	return o, err
}

// runBenchEngine measures the engine's own cost per question with a
// zero-latency in-process model and in-memory BM25 sources: overhead per
// LLM call and per question, allocations, and how much of each reasoning
// prompt repeats the previous one (prompt-cache reuse).
func runBenchEngine(e *env, o *benchEngineOptions) error {
	qs, source, err := benchEngineQuestions(o)
	if err != nil {
		return err
	}
	for _, name := range o.Strategies {
		s := engine.DefaultRunConfig()
		s.Model, s.Strategy, s.K, s.MaxSteps = "oracle", name, o.K, o.MaxSteps
		if err := s.Validate(); err != nil {
			return err
		}
		h := o.Holdout
		if h == 0 {
			h = -1 // enginebench: 0 means its default
		}
		r, err := enginebench.Measure(e.ctx, enginebench.Config{Questions: qs, Settings: s, Hops: o.Hops, Holdout: h, NoTokens: o.NoTokens, Know: o.Know})
		if err != nil {
			return err
		}
		if o.Out.JSON {
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

// benchEngineQuestions are the questions the engine benchmark asks (--limit
// applied) and what they are: those of --data that carry paragraphs, or
// synthetic two-hop ones.
func benchEngineQuestions(o *benchEngineOptions) ([]eval.Question, string, error) {
	var qs []eval.Question
	source := "synthetic two-hop questions"
	if o.Data != "" {
		ds, err := eval.LoadFile(o.Data)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		for _, q := range ds.Questions {
			if len(q.Paragraphs) > 0 {
				qs = append(qs, q)
			}
		}
		if len(qs) == 0 {
			return nil, "", usagef("%s has no questions with paragraphs to build the in-memory sources from", o.Data)
		}
		source = ds.Name
	} else {
		n := 200
		if o.Limit > 0 {
			n = o.Limit
		}
		qs = enginebench.Synthetic(n, 1)
	}
	if o.Limit > 0 && o.Limit < len(qs) {
		qs = qs[:o.Limit]
	}
	return qs, source, nil
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
