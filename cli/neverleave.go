package cli

import (
	"fmt"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// resolveNeverLeave reads the configured never-leave names (the flag, the
// config file) as the corpora they name, in place, and says on stderr how
// a name that was not a corpus's exact name was read. A name that names no
// corpus is a usage error (exit 2) with a "did you mean".
func resolveNeverLeave(e *env) error {
	s := &e.cfg.Settings
	names, notes, err := app.ResolveNeverLeave(e.cfg.CorporaDir(), s.NeverLeave, e.cfg.Name("never_leave"))
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "prefrag: "+textsafe.OneLine(n))
	}
	s.NeverLeave = names
	return nil
}
