package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/prefrag/prefrag/bench/retrieval"
)

type benchScaleArgs struct {
	data, work string
	keep, json bool
	passages   int
	seed       uint64
	samples    int
	rounds     int
	// dims and rerank: the vector leg (--dims, --rerank).
	dims, rerank int
}

// runBenchScale is `prefrag bench retrieval --scale N`: the build and query
// comparison of prefrag and stock Bleve on a generated corpus of N passages.
func runBenchScale(e *env, fs *flag.FlagSet, a benchScaleArgs) error {
	if a.passages < 0 {
		return usagef("bench retrieval: --scale must be positive")
	}
	if a.rounds < 1 {
		return usagef("bench retrieval: --rounds must be at least 1")
	}
	samples := retrieval.DefaultScaleSamples
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "latency-samples" {
			samples = a.samples
		}
	})
	if st, err := os.Stat(filepath.Join(a.data, "multihop")); err != nil || !st.IsDir() {
		return usagef("bench retrieval: %s has no multihop/ folder; pass --data DIR (the folder holding ir/ and multihop/)", a.data)
	}
	// Everything generated goes to a fresh folder: inside --work when given
	// (a folder the user named is never deleted), else in the system's
	// temporary one. At 1,000,000 passages it needs about 4 GB.
	if a.work != "" {
		if err := os.MkdirAll(a.work, 0o755); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp(a.work, "prefrag-scale-")
	if err != nil {
		return err
	}
	if a.keep {
		fmt.Fprintf(e.stderr, "the corpus and indexes are kept in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	rep, err := retrieval.RunScale(e.ctx, retrieval.ScaleConfig{
		DataDir: a.data, WorkDir: dir, Passages: a.passages, Seed: a.seed, Samples: samples, Rounds: a.rounds, Dims: a.dims, Rerank: a.rerank,
		ChildArgs: []string{"bench", retrieval.ChildCommand}, Log: e.stderr,
	})
	if err != nil {
		return fmt.Errorf("retrieval scale benchmark: %w", err)
	}
	if a.json {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}
