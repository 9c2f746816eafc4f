package cli

import (
	"fmt"

	"github.com/prefrag/prefrag/bench/retrieval"
	"github.com/prefrag/prefrag/internal/suggest"
)

// benchCommand is `prefrag bench SUBCOMMAND`.
func benchCommand(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("usage: prefrag bench retrieval|engine|evidence [flags] (-h for each)")
	}
	switch args[0] {
	case "retrieval":
		return newCmd(parseBenchRetrieval, runBenchRetrieval)(e, args[1:])
	case "engine":
		return newCmd(parseBenchEngine, runBenchEngine)(e, args[1:])
	case "evidence":
		return newCmd(parseBenchEvidence, runBenchEvidence)(e, args[1:])
	case retrieval.ChildCommand: // hidden: one process of --scale
		return retrieval.Child(e.ctx, args[1:], e.stdout)
	case "-h", "--help", "help":
		// The same rows as `prefrag help` lists (benchSubcommands).
		fmt.Fprintln(e.stdout, "Usage:")
		rows := make([][2]string, len(benchSubcommands))
		for i, sc := range benchSubcommands {
			rows[i] = [2]string{"prefrag bench " + sc[0], sc[1]}
		}
		writeColumns(e.stdout, rows, 40)
		fmt.Fprintln(e.stdout, "\nRun `prefrag bench SUBCOMMAND --help` for its flags.")
		return nil
	}
	if near := suggest.Closest(args[0], []string{"retrieval", "engine", "evidence"}); near != "" {
		return usagef("unknown bench %q — did you mean %s?", args[0], near)
	}
	return usagef("unknown bench %q (retrieval, engine, evidence)", args[0])
}
