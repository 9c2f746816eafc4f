package cli

import (
	"flag"

	"github.com/prefrag/prefrag/config"
)

// outputFlags are the output flags of every command, declared here and
// nowhere else: --json (each command says what it prints then) and, where
// events stream, --tokens.
type outputFlags struct {
	JSON   bool
	Tokens bool
}

// The help of the output flags of an event stream (ask, the run flags).
const (
	jsonEventsHelp = "JSON Lines events on stdout"
	tokensHelp     = "with --json: also print streamed token events"
)

// bindJSON declares --json on fs; usage says what the command prints with it.
func bindJSON(fs *flag.FlagSet, usage string) *outputFlags {
	o := &outputFlags{}
	fs.BoolVar(&o.JSON, "json", false, usage)
	return o
}

// bindEventOutput declares --json and --tokens on fs, for a command that
// streams events.
func bindEventOutput(fs *flag.FlagSet) *outputFlags {
	o := bindJSON(fs, jsonEventsHelp)
	fs.BoolVar(&o.Tokens, "tokens", false, tokensHelp)
	return o
}

// bindRunFlags declares the flags of `ask` on fs — the settings of the
// schema (config.BindRunFlags) and the output flags — for the commands
// that take ask's flags (ask, the TUI, eval, config, sources, mcp).
func bindRunFlags(fs *flag.FlagSet, c *config.Config) (*config.RunFlags, *outputFlags) {
	return config.BindRunFlags(fs, c), bindEventOutput(fs)
}

// The run flags include the two output flags, --json and --tokens, that
// only `ask` (and `eval`, --json) has output for. `config` prints settings
// as text and the interactive app has no event stream: there they would
// do nothing, so they are refused (exit 2) with where they apply, and
// their help says so.

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
