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

// benchRetrievalOptions are `prefrag bench retrieval`'s.
type benchRetrievalOptions struct {
	Data      string // the shared data folder holding ir/ and multihop/
	Datasets  string
	Large     bool
	LargeSize int
	MaxDocs   int
	Samples   int // timed queries per engine and dataset (with --scale: its own default unless given)
	Work      string
	Keep      bool
	Seed      uint64
	Out       outputFlags
	Scale     int // passages of the scale run; 0: the quality run
	Dims      int // with Scale: the vector leg's dimensions (0: none)
	Rerank    int // with Dims: candidates rescored with their full vectors
	Rounds    int
}

func parseBenchRetrieval(e *env, args []string) (*benchRetrievalOptions, error) {
	fs := flag.NewFlagSet("bench retrieval", flag.ContinueOnError)
	o := &benchRetrievalOptions{}
	fs.StringVar(&o.Data, "data", "", "shared data folder holding ir/ and multihop/ (default: a shared/data folder found walking up from the current directory)")
	fs.StringVar(&o.Datasets, "datasets", "", "comma-separated datasets to run (default all: vaswani, cranfield, hotpotqa-ircot, migres-hotpotqa, migres-musique, migres-2wiki)")
	fs.BoolVar(&o.Large, "large", false, "also time a synthetic corpus of --large-size passages built from the real ones (takes minutes)")
	fs.IntVar(&o.LargeSize, "large-size", retrieval.DefaultLargeSize, "passages in the --large corpus")
	fs.IntVar(&o.MaxDocs, "max-docs", 0, "keep only the first N documents of each collection and pool only the questions that fit in N paragraphs (quick runs)")
	fs.IntVar(&o.Samples, "latency-samples", retrieval.DefaultLatencySamples, "minimum timed queries per engine and dataset")
	fs.StringVar(&o.Work, "work", "", "folder in which a fresh subfolder receives the generated files and indexes (default: the system temporary folder); the subfolder is removed afterwards unless --keep")
	fs.BoolVar(&o.Keep, "keep", false, "keep the generated files and indexes afterwards")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the synthetic corpus")
	out := bindJSON(fs, "print the report as one JSON object")
	fs.IntVar(&o.Scale, "scale", 0, "instead of the quality run, build a corpus of N passages generated from the multi-hop paragraphs with prefrag and with stock Bleve, each in its own process, and compare build rate, memory, size and query latency (1000000 needs about 4 GB of disk under --work; see the README for times)")
	fs.IntVar(&o.Dims, "dims", 0, "with --scale: also embed the corpus with synthetic vectors of this many dimensions (e.g. 384) and measure the vector leg: recall@10 against an exact scan, dense and hybrid query latency, build time and memory")
	fs.IntVar(&o.Rerank, "rerank", 0, "with --dims: candidates the vector leg rescores with their full vectors (default 400)")
	fs.IntVar(&o.Rounds, "rounds", 2, "with --scale: how many times each engine builds the corpus, the engines taking turns; each row reports its fastest build, so that a moment of load on the machine does not decide the ratio")
	ef := config.BindSettingFlags(fs, e.cfg, "embed_model", "embed_url", "embed_llm")
	rest, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, benchRetrievalUsage)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := ef.Apply(); err != nil {
		return nil, err
	}
	o.Out = *out
	if len(rest) > 0 {
		return nil, usagef("bench retrieval takes no arguments, got %q: %s", rest[0], benchRetrievalUsage)
	}
	if o.LargeSize <= 0 || o.MaxDocs < 0 || o.Samples <= 0 {
		return nil, usagef("bench retrieval: --large-size and --latency-samples must be positive, --max-docs not negative")
	}
	if o.Data == "" {
		wd, _ := os.Getwd()
		if o.Data = retrieval.FindSharedData(wd); o.Data == "" {
			return nil, usagef("bench retrieval: no shared/data folder found above %s; pass --data DIR (the folder holding ir/ and multihop/)", wd)
		}
	}
	if o.Scale != 0 {
		return o, checkBenchScale(fs, o)
	}
	if st, err := os.Stat(filepath.Join(o.Data, "ir")); err != nil || !st.IsDir() {
		return nil, usagef("bench retrieval: %s has no ir/ folder; pass --data DIR (the folder holding ir/ and multihop/)", o.Data)
	}
	return o, nil
}

// runBenchRetrieval is `prefrag bench retrieval`: the retrieval quality and
// speed benchmark of the local corpus against SQLite FTS5 (when the binary is
// built with -tags sqlite_fts5), or with --scale the scale run.
func runBenchRetrieval(e *env, o *benchRetrievalOptions) error {
	if o.Scale != 0 {
		return runBenchScale(e, o)
	}
	dir, cleanup, err := benchWorkDir(e, o.Work, "prefrag-bench-", o.Keep, "indexes and generated files are kept in %s\n")
	if err != nil {
		return err
	}
	defer cleanup()
	cfg := retrieval.Config{
		DataDir: o.Data, WorkDir: dir, Datasets: retrieval.ParseDatasets(o.Datasets), MaxDocs: o.MaxDocs,
		Large: o.Large, LargeSize: o.LargeSize, LatencySamples: o.Samples, Seed: o.Seed, Log: e.stderr,
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
	if o.Out.JSON {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}

// benchWorkDir makes the fresh folder a benchmark writes its files and
// indexes to: inside work when given (a folder the user named is never
// deleted), else in the system's temporary one. cleanup removes it unless
// keep, which says where it is (kept, a format with one %s).
func benchWorkDir(e *env, work, prefix string, keep bool, kept string) (dir string, cleanup func(), err error) {
	if work != "" {
		if err := os.MkdirAll(work, 0o755); err != nil {
			return "", nil, err
		}
	}
	if dir, err = os.MkdirTemp(work, prefix); err != nil {
		return "", nil, err
	}
	if keep {
		fmt.Fprintf(e.stderr, kept, dir)
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
