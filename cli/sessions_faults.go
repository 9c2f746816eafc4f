package cli

import (
	"fmt"

	"github.com/prefrag/prefrag/app"
)

// openSessionsApp opens the app for a command that reads sessions and says
// on stderr when the session database can only be read here.
func openSessionsApp(e *env) (*app.App, error) {
	a, err := openApp(e)
	if err != nil {
		return nil, err
	}
	if why := a.Store.ReadOnly(); why != "" {
		fmt.Fprintf(e.stderr, "prefrag: session database %s is read-only here (%s); reading it, recording nothing\n", clean(a.Store.Path()), clean(why))
	}
	return a, nil
}

// errExportIncomplete ends an export that skipped sessions (exit 1); what
// was skipped is already on stderr.
var errExportIncomplete = fmt.Errorf("export incomplete: %w", errAlreadyReported)
