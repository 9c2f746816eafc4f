package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/prefrag/prefrag/app/evalsetup"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// defaultEvalStrategies are the rows of the paper's Table 1 that prefrag
// reproduces (EvalDefault in the strategy table), in the table's order.
var defaultEvalStrategies = func() []string {
	var out []string
	for _, st := range engine.Strategies() {
		if st.EvalDefault {
			out = append(out, st.Name)
		}
	}
	return out
}()

const evalUsage = "eval --data FILE [--corpus NAME] [--strategies a,b,c] [--limit N] [--parallel P] [--out DIR] [--holdout-supporting F] [ask flags]"

// evalOptions are eval's: the run settings are applied to the
// configuration; rf says which flags were given.
type evalOptions struct {
	rf                *config.RunFlags
	Out               outputFlags
	data, dataset     string
	strategies, out   string
	names             []string // the strategies to run, resolved
	limit, parallel   int
	holdout           eval.Holdout
	store, reportOnly bool
}

// parseEval reads eval's flags (flag.ErrHelp after printing the help).
func parseEval(e *env, args []string) (*evalOptions, error) {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	o := &evalOptions{}
	rf, out := bindRunFlags(fs, e.cfg)
	fs.StringVar(&o.data, "data", "", "QA file: IRCoT or MuSiQue JSONL, HotpotQA/2Wiki JSON Lines, or JSON/JSONL with question and answer(s)")
	fs.StringVar(&o.dataset, "dataset", "", "dataset name in the reports (default: from the file name)")
	fs.StringVar(&o.strategies, "strategies", "", "comma-separated strategies (default: --strategy when given, else "+strings.Join(defaultEvalStrategies, ",")+")")
	fs.IntVar(&o.limit, "limit", 0, "evaluate only the first N questions (0: all)")
	fs.IntVar(&o.parallel, "parallel", 1, "questions answered at once (with Ollama, start it with OLLAMA_NUM_PARALLEL of at least this)")
	fs.StringVar(&o.out, "out", "eval-results", "folder for <strategy>.jsonl, summary.md and run.json; re-running resumes")
	fs.Float64Var(&o.holdout.Fraction, "holdout-supporting", 0, "hold this fraction of the supporting paragraphs out of the local corpus and serve them (with the distractors) from a local search-engine stand-in that plays the web")
	fs.Int64Var(&o.holdout.Seed, "holdout-seed", 1, "seed choosing the held-out paragraphs")
	fs.BoolVar(&o.store, "store-sessions", false, "also keep every question as a session in the session store")
	fs.BoolVar(&o.reportOnly, "report", false, "only rewrite summary.md from the records in --out")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, evalUsage)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usagef("eval takes no positional arguments (got %q): give the QA file with --data", pos[0])
	}
	o.rf, o.Out = rf, *out
	if o.reportOnly {
		if st, err := os.Stat(o.out); err != nil || !st.IsDir() {
			return nil, usagef("--report: no results folder %s; give the --out of an earlier run", o.out)
		}
		return o, nil
	}
	return o, o.check(e)
}

// check applies the run settings and checks the options of a run.
func (o *evalOptions) check(e *env) error {
	if err := o.rf.Apply(); err != nil {
		return err
	}
	if o.data == "" {
		return usagef("eval needs a QA file: prefrag %s", evalUsage)
	}
	names, err := evalStrategies(o.strategies, o.rf, e.cfg.Settings.Strategy)
	if err != nil {
		return err
	}
	o.names = names
	if o.parallel < 1 {
		return usagef("--parallel must be at least 1")
	}
	if err := o.holdout.Validate(); err != nil {
		return usagef("--holdout-supporting: %v", err)
	}
	return nil
}

func runEval(e *env, o *evalOptions) error {
	if o.reportOnly {
		return writeEvalSummary(e, o.out, o.Out.JSON)
	}
	ds, all, err := o.load()
	if err != nil {
		return err
	}
	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	s := e.cfg.Settings
	order, err := a.CorpusOrder(s)
	if err != nil {
		return err
	}
	if len(order) == 0 {
		fmt.Fprintln(e.stderr, "prefrag eval: no corpus to search (none named with --corpus, none pinned); build one from the QA file with `prefrag index --corpus NAME --from-qa FILE`, or pass --corpus NAME")
	}
	h, err := reconcileHoldout(e, order, o.data, o.holdout, o.rf.Set("holdout-supporting"))
	if err != nil {
		return err
	}
	s.Web = evalWebPolicy(e, s.Web, h)
	standIn, err := startHoldoutStandIn(e, all, h, s.Web)
	if err != nil {
		return err
	}
	if standIn != nil {
		defer standIn.Close()
	}
	setup, err := evalsetup.New(e.ctx, a, s, evalsetup.Options{StoreSessions: o.store, StandIn: standIn})
	if err != nil {
		return err
	}
	defer setup.Close()
	r := &eval.Runner{Dataset: ds, Strategies: o.names, Settings: setup.Settings, OutDir: o.out, Parallel: o.parallel,
		Backend: setup.Backend, Info: eval.NewRunInfo(ds, setup.Settings, h, a.Prompts.Hash(), config.SetupKeys()), Progress: eval.NewProgress(e.stderr, isTerminal(e.stderr))}
	return o.run(e, r)
}

// load reads the QA file: the questions to ask (--limit applied) and all
// the file's questions.
func (o *evalOptions) load() (*eval.Dataset, []eval.Question, error) {
	ds, err := eval.LoadFile(o.data)
	if err != nil {
		if errors.Is(err, eval.ErrData) {
			return nil, nil, usagef("%v", err)
		}
		return nil, nil, fmt.Errorf("cannot read the QA file: %w", err)
	}
	if o.dataset != "" {
		ds.Name = o.dataset
	}
	all := ds.Questions
	if o.limit > 0 && o.limit < len(ds.Questions) {
		ds.Questions = ds.Questions[:o.limit]
	}
	return ds, all, nil
}

// run runs the evaluation, writes the summary and says how it ended.
func (o *evalOptions) run(e *env, r *eval.Runner) error {
	if err := r.Prepare(); err != nil {
		if errors.Is(err, eval.ErrSettingsChanged) {
			return usagef("%v", err)
		}
		return err
	}
	rep, runErr := r.Run(e.ctx)
	if err := writeEvalSummary(e, o.out, o.Out.JSON); err != nil && runErr == nil {
		runErr = err
	}
	switch {
	case runErr != nil && e.ctx.Err() != nil:
		return fmt.Errorf("cancelled; %s saved in %s: run the same command to resume", plural.Of(rep.Answered+rep.Skipped, "answer is", "answers are"), o.out)
	case runErr != nil:
		return runErr
	case len(rep.Failed) > 0:
		return fmt.Errorf("%s failed (listed above); run the same command to retry %s", plural.N(len(rep.Failed), "question"), plural.Noun(len(rep.Failed), "it", "them"))
	}
	return nil
}

// evalWebPolicy is the web policy an evaluation runs with: nobody is there
// to ask, so "ask" is "never", unless the web is the local stand-in of a
// holdout and no policy was chosen.
func evalWebPolicy(e *env, web string, h eval.Holdout) string {
	switch {
	case web == engine.WebAsk && !e.cfg.WebChosen() && h.Active():
		// The held-out stand-in runs on this machine: nothing leaves it.
		return engine.WebAuto
	case web == engine.WebAsk && !e.cfg.WebChosen():
		fmt.Fprintln(e.stderr, "prefrag eval: no web policy chosen, so the evaluation acts as --web never; pass --web auto (or set web = \"auto\" in the config) to search the web")
		return engine.WebNever
	case web == engine.WebAsk:
		fmt.Fprintln(e.stderr, "prefrag eval: --web ask needs someone to ask; the evaluation acts as --web never")
		return engine.WebNever
	}
	return web
}

// startHoldoutStandIn starts the local search-engine stand-in serving the
// held-out paragraphs of all's pool (nil when no holdout is active).
func startHoldoutStandIn(e *env, all []eval.Question, h eval.Holdout, web string) (*eval.StandIn, error) {
	if !h.Active() {
		return nil, nil
	}
	if web == engine.WebNever {
		fmt.Fprintln(e.stderr, "prefrag eval: --web never: the held-out paragraphs will not be reachable")
	}
	standIn, err := eval.StartStandIn(e.ctx, eval.StandInParagraphs(eval.PoolParagraphs(all), h))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stderr, "prefrag eval: the web is a local search-engine stand-in at %s serving %s (held-out supporting ones and distractors)\n", standIn.URL(), plural.N(standIn.Len(), "paragraph"))
	return standIn, nil
}

// evalStrategies resolves the strategy list.
func evalStrategies(list string, rf *config.RunFlags, single string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		if rf.Set("strategy") {
			return []string{single}, nil
		}
		return defaultEvalStrategies, nil
	}
	names, err := evalStrategiesList(list)
	if err != nil {
		return nil, usagef("--strategies: %v", err)
	}
	return names, nil
}

// reconcileHoldout checks the holdout against the one the preferred corpus
// was pooled with: without the flag the corpus's holdout is adopted, with a
// different one the run is refused (its table would be meaningless).
func reconcileHoldout(e *env, corpora []string, data string, h eval.Holdout, given bool) (eval.Holdout, error) {
	if len(corpora) == 0 {
		return h, nil
	}
	info, ok, err := eval.ReadQAPoolInfo(e.cfg.CorporaDir(), corpora[0])
	if err != nil || !ok {
		return h, err
	}
	if abs, err := filepath.Abs(data); err == nil && info.Data != "" && abs != info.Data {
		fmt.Fprintf(e.stderr, "prefrag eval: note: corpus %s was pooled from %s, not from %s\n", corpora[0], textsafe.ForTerminal(info.Data), textsafe.ForTerminal(abs))
	}
	switch {
	case info.Holdout == nil && given && h.Active():
		return h, usagef("corpus %s was pooled with every supporting paragraph; re-pool it with `prefrag index --corpus %s --from-qa FILE --holdout-supporting %v`", corpora[0], corpora[0], h.Fraction)
	case info.Holdout != nil && !given:
		fmt.Fprintf(e.stderr, "prefrag eval: corpus %s holds out %.0f%% of the supporting paragraphs (seed %d); serving them from the stand-in\n", corpora[0], info.Holdout.Fraction*100, info.Holdout.Seed)
		return *info.Holdout, nil
	case info.Holdout != nil && *info.Holdout != h:
		return h, usagef("corpus %s was pooled with --holdout-supporting %v --holdout-seed %d; give the same values (or none)", corpora[0], info.Holdout.Fraction, info.Holdout.Seed)
	}
	return h, nil
}

// writeEvalSummary rewrites summary.md (and summary.json) and prints it.
func writeEvalSummary(e *env, dir string, asJSON bool) error {
	infos, err := eval.ReadRunInfos(dir)
	if err != nil {
		return err
	}
	s, md, err := eval.WriteSummary(dir, infos)
	if err != nil {
		return err
	}
	if asJSON {
		b, _ := json.Marshal(s)
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	fmt.Fprint(e.stdout, textsafe.ForTerminal(md))
	return nil
}
