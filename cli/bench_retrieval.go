package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/bench/retrieval"
	"github.com/prefrag/prefrag/config"
)

const benchRetrievalUsage = "bench retrieval [--data DIR] [--datasets LIST] [--large] [--embed-model M [--embed-url URL]] [--scale N [--dims D]] [--json]"

// runBenchRetrieval is `prefrag bench retrieval`: the retrieval quality and
// speed benchmark of the local corpus against SQLite FTS5 (when the binary is
// built with -tags sqlite_fts5).
func runBenchRetrieval(e *env, args []string) error {
	fs := flag.NewFlagSet("bench retrieval", flag.ContinueOnError)
	data := fs.String("data", "", "shared data folder holding ir/ and multihop/ (default: a shared/data folder found walking up from the current directory)")
	datasets := fs.String("datasets", "", "comma-separated datasets to run (default all: vaswani, cranfield, hotpotqa-ircot, migres-hotpotqa, migres-musique, migres-2wiki)")
	large := fs.Bool("large", false, "also time a synthetic corpus of --large-size passages built from the real ones (takes minutes)")
	largeSize := fs.Int("large-size", retrieval.DefaultLargeSize, "passages in the --large corpus")
	maxDocs := fs.Int("max-docs", 0, "keep only the first N documents of each collection and pool only the questions that fit in N paragraphs (quick runs)")
	samples := fs.Int("latency-samples", retrieval.DefaultLatencySamples, "minimum timed queries per engine and dataset")
	work := fs.String("work", "", "folder in which a fresh subfolder receives the generated files and indexes (default: the system temporary folder); the subfolder is removed afterwards unless --keep")
	keep := fs.Bool("keep", false, "keep the generated files and indexes afterwards")
	seed := fs.Uint64("seed", 1, "seed of the synthetic corpus")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	scale := fs.Int("scale", 0, "instead of the quality run, build a corpus of N passages generated from the multi-hop paragraphs with prefrag and with stock Bleve, each in its own process, and compare build rate, memory, size and query latency (1000000 needs about 4 GB of disk under --work; see the README for times)")
	dims := fs.Int("dims", 0, "with --scale: also embed the corpus with synthetic vectors of this many dimensions (e.g. 384) and measure the vector leg: recall@10 against an exact scan, dense and hybrid query latency, build time and memory")
	rerank := fs.Int("rerank", 0, "with --dims: candidates the vector leg rescores with their full vectors (default 400)")
	rounds := fs.Int("rounds", 2, "with --scale: how many times each engine builds the corpus, the engines taking turns; each row reports its fastest build, so that a moment of load on the machine does not decide the ratio")
	ef := config.BindSettingFlags(fs, e.cfg, "embed_model", "embed_url", "embed_llm")
	rest, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, benchRetrievalUsage)
		return err
	}
	if err != nil {
		return err
	}
	if err := ef.Apply(); err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("bench retrieval takes no arguments, got %q: %s", rest[0], benchRetrievalUsage)
	}
	if *largeSize <= 0 || *maxDocs < 0 || *samples <= 0 {
		return usagef("bench retrieval: --large-size and --latency-samples must be positive, --max-docs not negative")
	}
	if *data == "" {
		wd, _ := os.Getwd()
		if *data = retrieval.FindSharedData(wd); *data == "" {
			return usagef("bench retrieval: no shared/data folder found above %s; pass --data DIR (the folder holding ir/ and multihop/)", wd)
		}
	}
	if *scale != 0 {
		return runBenchScale(e, fs, benchScaleArgs{data: *data, work: *work, keep: *keep, passages: *scale, seed: *seed, samples: *samples, rounds: *rounds, json: *asJSON, dims: *dims, rerank: *rerank})
	}
	if st, err := os.Stat(filepath.Join(*data, "ir")); err != nil || !st.IsDir() {
		return usagef("bench retrieval: %s has no ir/ folder; pass --data DIR (the folder holding ir/ and multihop/)", *data)
	}
	// The indexes go to a fresh folder: inside --work when given (a folder
	// the user named is never deleted), else in the system's temporary one.
	parent := *work
	if parent != "" {
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp(parent, "prefrag-bench-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintf(e.stderr, "indexes and generated files are kept in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	cfg := retrieval.Config{
		DataDir: *data, WorkDir: dir, Datasets: retrieval.ParseDatasets(*datasets), MaxDocs: *maxDocs,
		Large: *large, LargeSize: *largeSize, LatencySamples: *samples, Seed: *seed, Log: e.stderr,
	}
	// With an embedding model (--embed-model or --embed-url), each
	// dataset is embedded by the user's server and searched hybrid too.
	a := &app.App{Cfg: e.cfg}
	emb, err := a.EmbedderFor(e.cfg.Settings, nil)
	if err != nil {
		return err
	}
	if emb != nil {
		if err := emb.Resolve(e.ctx); err != nil {
			return fmt.Errorf("bench retrieval: %w", err)
		}
		cfg.Embedder = emb
	}
	rep, err := retrieval.Run(e.ctx, cfg)
	if errors.Is(err, retrieval.ErrUnknownDataset) {
		return usagef("bench retrieval: %v", err)
	}
	if err != nil {
		return fmt.Errorf("retrieval benchmark: %w", err)
	}
	if *asJSON {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}
