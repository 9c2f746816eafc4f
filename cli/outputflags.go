package cli

import (
	"flag"

	"github.com/prefrag/prefrag/config"
)

// The run flags (config.BindRunFlags) include two output flags, --json and
// --tokens, that only `ask` (and `eval`, --json) has output for. `config`
// prints settings as text and the interactive app has no event stream:
// there they would do nothing, so they are refused (exit 2) with where
// they apply, and their help says so.

// outputFlagsWhere says where the output flags apply.
const outputFlagsWhere = "--json applies to `prefrag ask` (and to search, corpora, sessions, eval), --tokens to `prefrag ask --json`"

// markOutputFlags rewrites the help of --json and --tokens on fs for a
// command (cmd) that refuses them.
func markOutputFlags(fs *flag.FlagSet, cmd string) {
	for _, name := range []string{"json", "tokens"} {
		if f := fs.Lookup(name); f != nil {
			f.Usage = "refused by " + cmd + ": " + outputFlagsWhere
		}
	}
}

// refuseOutputFlags is a usage error when --json or --tokens was given to
// cmd (after rf.Apply), nil otherwise.
func refuseOutputFlags(rf *config.RunFlags, cmd, what string) error {
	for _, name := range []string{"json", "tokens"} {
		if rf.Set(name) {
			return usagef("%s %s, so --%s does nothing there: %s", cmd, what, name, outputFlagsWhere)
		}
	}
	return nil
}
