package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/prefrag/prefrag/bench/retrieval"
)

// checkBenchScale checks the options of `bench retrieval --scale N`; the
// scale run has its own default number of timed queries.
func checkBenchScale(fs *flag.FlagSet, o *benchRetrievalOptions) error {
	if o.Scale < 0 {
		return usagef("bench retrieval: --scale must be positive")
	}
	if o.Rounds < 1 {
		return usagef("bench retrieval: --rounds must be at least 1")
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "latency-samples" })
	if !given {
		o.Samples = retrieval.DefaultScaleSamples
	}
	if st, err := os.Stat(filepath.Join(o.Data, "multihop")); err != nil || !st.IsDir() {
		return usagef("bench retrieval: %s has no multihop/ folder; pass --data DIR (the folder holding ir/ and multihop/)", o.Data)
	}
	return nil
}

// runBenchScale is `prefrag bench retrieval --scale N`: the build and query
// comparison of prefrag and stock Bleve on a generated corpus of N passages.
func runBenchScale(e *env, o *benchRetrievalOptions) error {
	// At 1,000,000 passages the folder needs about 4 GB.
	dir, cleanup, err := benchWorkDir(e, o.Work, "prefrag-scale-", o.Keep, "the corpus and indexes are kept in %s\n")
	if err != nil {
		return err
	}
	defer cleanup()
	rep, err := retrieval.RunScale(e.ctx, retrieval.ScaleConfig{
		DataDir: o.Data, WorkDir: dir, Passages: o.Scale, Seed: o.Seed, Samples: o.Samples, Rounds: o.Rounds, Dims: o.Dims, Rerank: o.Rerank,
		ChildArgs: []string{"bench", retrieval.ChildCommand}, Log: e.stderr,
	})
	if err != nil {
		return fmt.Errorf("retrieval scale benchmark: %w", err)
	}
	if o.Out.JSON {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}
