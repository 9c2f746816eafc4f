package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/store"
)

// parseAge reads a duration like 12h, 90m or 30d (days).
func parseAge(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		d, err := strconv.ParseFloat(n, 64)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("bad days %q", s)
		}
		return time.Duration(d * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return d, nil
}

// sessionsRmOptions are `prefrag sessions rm`'s: the sessions named, or
// those older than an age.
type sessionsRmOptions struct {
	IDs       []string
	ByAge     bool // --older-than was given
	OlderThan time.Duration
	Yes       bool // delete without asking
}

func parseSessionsRm(e *env, args []string) (*sessionsRmOptions, error) {
	fs := flag.NewFlagSet("sessions rm", flag.ContinueOnError)
	o := &sessionsRmOptions{}
	older := fs.String("older-than", "", "delete the sessions started more than this long ago (30d, 12h)")
	fs.BoolVar(&o.Yes, "yes", false, "delete without asking (needed when not on a terminal)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "sessions rm ID... | --older-than DURATION [--yes]")
	}
	if err != nil {
		return nil, err
	}
	if (len(pos) == 0) == (*older == "") {
		return nil, usagef("usage: prefrag sessions rm ID... | --older-than DURATION [--yes]")
	}
	o.IDs, o.ByAge = pos, *older != ""
	if o.ByAge {
		if o.OlderThan, err = parseAge(*older); err != nil {
			return nil, usagef("--older-than takes a duration like 30d or 12h, not %q", *older)
		}
	}
	return o, nil
}

// runSessionsRm deletes sessions with their events and verdicts (the
// shared web cache stays); it asks on a terminal and needs --yes
// otherwise; a session running in a live process is refused.
func runSessionsRm(e *env, o *sessionsRmOptions) error {
	a, err := openSessionsApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	ids, err := rmIDs(e, a.Store, o)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		fmt.Fprintln(e.stdout, "no session to delete")
		return nil
	}
	if !o.Yes {
		in, ok := terminalIn(e.stdin)
		if !ok {
			return usagef("sessions rm deletes %s for good: pass --yes to confirm (there is no terminal to ask on)", plural.N(len(ids), "session"))
		}
		if !confirm(in, e.stderr, fmt.Sprintf("Delete %s with %s events? This cannot be undone. [y/N] ", plural.N(len(ids), "session"), plural.Noun(len(ids), "its", "their"))) {
			fmt.Fprintln(e.stdout, "kept the sessions")
			return nil
		}
	}
	var failed error
	n := 0
	for _, id := range ids {
		if err := a.Store.DeleteSession(e.ctx, id); err != nil {
			fmt.Fprintln(e.stderr, "prefrag:", oneLine(err))
			failed = errAlreadyReported
			continue
		}
		n++
		fmt.Fprintf(e.stdout, "deleted session %s\n", textsafe.Literal(id))
	}
	if n != len(ids) {
		fmt.Fprintf(e.stdout, "deleted %d of %s\n", n, plural.N(len(ids), "session"))
	}
	return failed
}

// rmIDs are the ids of the sessions an rm names: those started before
// the age, or those given (resolved from unique prefixes).
func rmIDs(e *env, st *store.Store, o *sessionsRmOptions) ([]string, error) {
	var ids []string
	if o.ByAge {
		list, err := st.ListSessions(e.ctx, store.Filter{})
		if err != nil {
			return nil, err
		}
		cut := time.Now().Add(-o.OlderThan)
		for _, s := range list {
			if s.Started.Before(cut) {
				ids = append(ids, s.ID)
			}
		}
		return ids, nil
	}
	for _, p := range o.IDs {
		id, err := st.ResolveID(e.ctx, p)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}
