package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

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

func runEval(e *env, args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	rf := config.BindRunFlags(fs, e.cfg)
	data := fs.String("data", "", "QA file: IRCoT or MuSiQue JSONL, HotpotQA/2Wiki JSON Lines, or JSON/JSONL with question and answer(s)")
	dataset := fs.String("dataset", "", "dataset name in the reports (default: from the file name)")
	strategies := fs.String("strategies", "", "comma-separated strategies (default: --strategy when given, else "+strings.Join(defaultEvalStrategies, ",")+")")
	limit := fs.Int("limit", 0, "evaluate only the first N questions (0: all)")
	parallel := fs.Int("parallel", 1, "questions answered at once (with Ollama, start it with OLLAMA_NUM_PARALLEL of at least this)")
	out := fs.String("out", "eval-results", "folder for <strategy>.jsonl, summary.md and run.json; re-running resumes")
	holdout := fs.Float64("holdout-supporting", 0, "hold this fraction of the supporting paragraphs out of the local corpus and serve them (with the distractors) from a local search-engine stand-in that plays the web")
	holdoutSeed := fs.Int64("holdout-seed", 1, "seed choosing the held-out paragraphs")
	store := fs.Bool("store-sessions", false, "also keep every question as a session in the session store")
	reportOnly := fs.Bool("report", false, "only rewrite summary.md from the records in --out")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, evalUsage)
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("eval takes no positional arguments (got %q): give the QA file with --data", pos[0])
	}
	if *reportOnly {
		if st, err := os.Stat(*out); err != nil || !st.IsDir() {
			return usagef("--report: no results folder %s; give the --out of an earlier run", *out)
		}
		return writeEvalSummary(e, *out, rf.JSON)
	}
	if err := rf.Apply(); err != nil {
		return err
	}
	if *data == "" {
		return usagef("eval needs a QA file: prefrag %s", evalUsage)
	}
	names, err := evalStrategies(*strategies, rf, e.cfg.Settings.Strategy)
	if err != nil {
		return err
	}
	if *parallel < 1 {
		return usagef("--parallel must be at least 1")
	}
	h := eval.Holdout{Fraction: *holdout, Seed: *holdoutSeed}
	if err := h.Validate(); err != nil {
		return usagef("--holdout-supporting: %v", err)
	}
	ds, err := eval.LoadFile(*data)
	if err != nil {
		if errors.Is(err, eval.ErrData) {
			return usagef("%v", err)
		}
		return fmt.Errorf("cannot read the QA file: %w", err)
	}
	if *dataset != "" {
		ds.Name = *dataset
	}
	all := ds.Questions
	if *limit > 0 && *limit < len(ds.Questions) {
		ds.Questions = ds.Questions[:*limit]
	}
	s := e.cfg.Settings

	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	order, err := a.CorpusOrder(s)
	if err != nil {
		return err
	}
	if len(order) == 0 {
		fmt.Fprintln(e.stderr, "prefrag eval: no corpus to search (none named with --corpus, none pinned); build one from the QA file with `prefrag index --corpus NAME --from-qa FILE`, or pass --corpus NAME")
	}
	if h, err = reconcileHoldout(e, order, *data, h, rf.Set("holdout-supporting")); err != nil {
		return err
	}
	switch {
	case s.Web == engine.WebAsk && !e.cfg.WebChosen() && h.Active():
		// The held-out stand-in runs on this machine: nothing leaves it.
		s.Web = engine.WebAuto
	case s.Web == engine.WebAsk && !e.cfg.WebChosen():
		fmt.Fprintln(e.stderr, "prefrag eval: no web policy chosen, so the evaluation acts as --web never; pass --web auto (or set web = \"auto\" in the config) to search the web")
		s.Web = engine.WebNever
	case s.Web == engine.WebAsk:
		fmt.Fprintln(e.stderr, "prefrag eval: --web ask needs someone to ask; the evaluation acts as --web never")
		s.Web = engine.WebNever
	}
	var standIn *eval.StandIn
	if h.Active() {
		if s.Web == engine.WebNever {
			fmt.Fprintln(e.stderr, "prefrag eval: --web never: the held-out paragraphs will not be reachable")
		}
		pool := eval.PoolParagraphs(all)
		if standIn, err = eval.StartStandIn(e.ctx, eval.StandInParagraphs(pool, h)); err != nil {
			return err
		}
		defer standIn.Close()
		fmt.Fprintf(e.stderr, "prefrag eval: the web is a local search-engine stand-in at %s serving %s (held-out supporting ones and distractors)\n", standIn.URL(), plural.N(standIn.Len(), "paragraph"))
	}
	setup, err := evalsetup.New(e.ctx, a, s, evalsetup.Options{StoreSessions: *store, StandIn: standIn})
	if err != nil {
		return err
	}
	defer setup.Close()

	tty := false
	if f, ok := e.stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	r := &eval.Runner{Dataset: ds, Strategies: names, Settings: setup.Settings, OutDir: *out, Parallel: *parallel,
		Backend: setup.Backend, Info: eval.NewRunInfo(ds, setup.Settings, h, a.Prompts.Hash(), config.SetupKeys()), Progress: eval.NewProgress(e.stderr, tty)}
	if err := r.Prepare(); err != nil {
		if errors.Is(err, eval.ErrSettingsChanged) {
			return usagef("%v", err)
		}
		return err
	}
	rep, runErr := r.Run(e.ctx)
	if err := writeEvalSummary(e, *out, rf.JSON); err != nil && runErr == nil {
		runErr = err
	}
	switch {
	case runErr != nil && e.ctx.Err() != nil:
		return fmt.Errorf("cancelled; %s saved in %s: run the same command to resume", plural.Of(rep.Answered+rep.Skipped, "answer is", "answers are"), *out)
	case runErr != nil:
		return runErr
	case len(rep.Failed) > 0:
		return fmt.Errorf("%s failed (listed above); run the same command to retry %s", plural.N(len(rep.Failed), "question"), plural.Noun(len(rep.Failed), "it", "them"))
	}
	return nil
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
