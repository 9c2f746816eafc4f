package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/sources/catalog"
)

// configOptions are `prefrag config`'s: the run flags are applied to the
// configuration to show their effect; invalid settings are printed, then
// reported.
type configOptions struct {
	invalid error // the settings' validation error (exit 2 after printing)
}

func parseConfig(e *env, args []string) (*configOptions, error) {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	rf, _ := bindRunFlags(fs, e.cfg)
	markOutputFlags(fs, "config")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, "config [ask flags]")
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usagef("config takes no positional arguments, not %q", pos[0])
	}
	o := &configOptions{invalid: rf.Apply()}
	if err := refuseOutputFlags(rf, "`prefrag config`", "prints the settings as text"); err != nil {
		return nil, err
	}
	return o, nil
}

// runConfig prints the config file path and every effective setting with
// where it came from (default, file, env, flag). Invalid settings are
// printed, then reported (exit 2).
func runConfig(e *env, o *configOptions) error {
	out := e.cfg.Describe()
	lines := strings.SplitAfter(out, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "corpora = ") && len(e.cfg.Settings.Corpora) == 0:
			// An empty list names no corpus: say on its line what `ask`
			// searches then (a TOML comment).
			lines[i] = strings.TrimSuffix(l, "\n") + "  # " + emptyCorporaNote(e.cfg.CorporaDir()) + "\n"
		case strings.HasPrefix(l, `mcp_config = ""`):
			if p, _ := e.cfg.MCPConfigPath(); p != "" {
				lines[i] = strings.TrimSuffix(l, "\n") + "  # MCP servers are read from " + strconv.Quote(p) + " when it exists\n"
			}
		}
	}
	out = strings.Join(lines, "")
	fmt.Fprint(e.stdout, out)
	if o.invalid != nil {
		return o.invalid
	}
	// A never-leave name that names no corpus protects nothing: refused
	// here as `ask` refuses it.
	return resolveNeverLeave(e)
}

// emptyCorporaNote says what `ask` and the app search when the corpora
// setting names none: the corpus pinned now, or none at all (and why).
func emptyCorporaNote(dir string) string {
	pinned, err := catalog.Pinned(dir)
	if err != nil {
		return "none named: ask searches the pinned corpus, which could not be read (" + line(err.Error()) + ")"
	}
	if pinned != "" {
		return "none named: ask and the app search the pinned corpus, " + strconv.Quote(pinned)
	}
	infos, err := catalog.List(dir)
	if err == nil && len(infos) == 0 {
		return "none named and none exists yet: ask searches no corpus and sends nothing to the web (without --web-only); create one with `prefrag index --corpus NAME FOLDER`"
	}
	names := make([]string, len(infos))
	for i, in := range infos {
		names[i] = in.Name
	}
	return "none named and none pinned: ask searches no corpus and sends nothing to the web (without --web-only); pin one with `prefrag corpora pin NAME` (" + strings.Join(names, ", ") + ") or pass --corpus NAME"
}
