package cli

import (
	"errors"
	"flag"
	"fmt"

	"github.com/prefrag/prefrag/config"
)

// runConfig prints the config file path and every effective setting with
// where it came from (default, file, env, flag); the run flags may be
// given to see their effect. Invalid settings are printed, then reported
// (exit 2).
func runConfig(e *env, args []string) error {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	rf := config.BindRunFlags(fs, e.cfg)
	markOutputFlags(fs, "config")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, "config [ask flags]")
		return err
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("config takes no positional arguments, not %q", pos[0])
	}
	verr := rf.Apply()
	if err := refuseOutputFlags(rf, "`prefrag config`", "prints the settings as text"); err != nil {
		return err
	}
	fmt.Fprint(e.stdout, e.cfg.Describe())
	return verr
}
