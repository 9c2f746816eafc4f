package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources/local"
)

// indexQAFlags are the flags of `prefrag index --from-qa FILE`: build a
// corpus from the paragraphs shipped with a QA file.
type indexQAFlags struct {
	file        string
	holdout     float64
	holdoutSeed int64
	limit       int
}

// bindIndexQAFlags registers --from-qa, --holdout-supporting, --holdout-seed
// and --qa-limit on the index command's flag set.
func bindIndexQAFlags(fs *flag.FlagSet) *indexQAFlags {
	f := &indexQAFlags{}
	fs.StringVar(&f.file, "from-qa", "", "build the corpus from the paragraphs shipped with this QA file (deduplicated by title and text)")
	fs.Float64Var(&f.holdout, "holdout-supporting", 0, "with --from-qa: leave this fraction of the supporting paragraphs out (prefrag eval serves them from a local search-engine stand-in)")
	fs.Int64Var(&f.holdoutSeed, "holdout-seed", 1, "with --from-qa: seed choosing the held-out paragraphs")
	fs.IntVar(&f.limit, "qa-limit", 0, "with --from-qa: pool only the first N questions (0: all)")
	return f
}

// active reports whether --from-qa was given.
func (f *indexQAFlags) active() bool { return f.file != "" }

// runIndexFromQA builds corpus from the QA file named by f and prints the
// report as `prefrag index` does.
func runIndexFromQA(e *env, corpus string, f *indexQAFlags, asJSON bool) error {
	h := eval.Holdout{Fraction: f.holdout, Seed: f.holdoutSeed}
	if err := h.Validate(); err != nil {
		return usagef("--holdout-supporting: %v", err)
	}
	if err := local.ValidateName(corpus); err != nil {
		return usagef("%v", err)
	}
	if _, err := os.Stat(f.file); err != nil {
		return fmt.Errorf("cannot read %s: %w", f.file, errors.Unwrap(err))
	}
	if err := os.MkdirAll(e.cfg.CorporaDir(), 0o755); err != nil {
		return err
	}
	prog := newProgressLine(e.stderr)
	rep, err := eval.IndexFromQA(e.ctx, e.cfg.CorporaDir(), corpus, f.file,
		eval.PoolLimit(f.limit), eval.PoolHoldout(h), eval.PoolProgress(prog.update))
	prog.done()
	switch {
	case errors.Is(err, eval.ErrData) || errors.Is(err, eval.ErrNoParagraphs):
		return usagef("%v", err)
	case errors.Is(err, context.Canceled):
		return errors.New("indexing cancelled; run the same command again to resume")
	case err != nil:
		return err
	}
	info, _, _ := eval.ReadQAPoolInfo(e.cfg.CorporaDir(), corpus)
	if asJSON {
		b, _ := json.Marshal(struct {
			local.Report
			Pool eval.QAPoolInfo `json:"pool"`
		}{rep, info})
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	fmt.Fprintf(e.stdout, "corpus %s: pooled %s (%d supporting) from %s of %s",
		rep.Corpus, plural.N(info.Paragraphs, "paragraph"), info.Supporting, plural.N(info.Questions, "question"), textsafe.ForTerminal(f.file))
	if h.Active() {
		fmt.Fprintf(e.stdout, "; held out %s (%.0f%%, seed %d) for the search-engine stand-in", plural.Of(info.HeldOut, "supporting paragraph", "supporting paragraphs"), h.Fraction*100, h.Seed)
	}
	fmt.Fprintf(e.stdout, "\ncorpus %s now holds %s, %s (%s)\n", rep.Corpus, plural.N(rep.Stats.Documents, "document"), plural.N(rep.Stats.Passages, "passage"), humanBytes(rep.Stats.SizeBytes))
	for _, fl := range rep.Failed {
		fmt.Fprintf(e.stdout, "  - %s\n", textsafe.ForTerminal(fl.String()))
	}
	return nil
}
