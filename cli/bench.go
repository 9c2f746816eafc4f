package cli

import (
	"fmt"

	"github.com/prefrag/prefrag/bench/retrieval"
	"github.com/prefrag/prefrag/internal/suggest"
)

// runBench dispatches the benchmark commands.
func runBench(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("usage: prefrag bench retrieval|engine|evidence [flags] (-h for each)")
	}
	switch args[0] {
	case "retrieval":
		return runBenchRetrieval(e, args[1:])
	case "engine":
		return runBenchEngine(e, args[1:])
	case "evidence":
		return runBenchEvidence(e, args[1:])
	case retrieval.ChildCommand: // hidden: one process of --scale
		return retrieval.Child(e.ctx, args[1:], e.stdout)
	case "-h", "--help", "help":
		fmt.Fprintln(e.stdout, "Usage: prefrag bench retrieval [flags]   retrieval quality and speed on the shared IR collections")
		fmt.Fprintln(e.stdout, "       prefrag bench engine [flags]      engine overhead per LLM call and prompt reuse")
		fmt.Fprintln(e.stdout, "       prefrag bench evidence --file F   supporting-sentence P/R/F1 of the evidence aligner")
		return nil
	}
	if near := suggest.Closest(args[0], []string{"retrieval", "engine", "evidence"}); near != "" {
		return usagef("unknown bench %q — did you mean %s?", args[0], near)
	}
	return usagef("unknown bench %q (retrieval, engine, evidence)", args[0])
}
