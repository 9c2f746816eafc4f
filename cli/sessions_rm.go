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

// sessionsRm is `prefrag sessions rm ID... | --older-than DURATION`: it
// deletes sessions with their events and verdicts (the shared web cache
// stays); it asks on a terminal and needs --yes otherwise; a session
// running in a live process is refused.
func sessionsRm(e *env, args []string) error {
	fs := flag.NewFlagSet("sessions rm", flag.ContinueOnError)
	older := fs.String("older-than", "", "delete the sessions started more than this long ago (30d, 12h)")
	yes := fs.Bool("yes", false, "delete without asking (needed when not on a terminal)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "sessions rm ID... | --older-than DURATION [--yes]")
	}
	if err != nil {
		return err
	}
	if (len(pos) == 0) == (*older == "") {
		return usagef("usage: prefrag sessions rm ID... | --older-than DURATION [--yes]")
	}
	var age time.Duration
	if *older != "" {
		if age, err = parseAge(*older); err != nil {
			return usagef("--older-than takes a duration like 30d or 12h, not %q", *older)
		}
	}
	a, err := openSessionsApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	var ids []string
	if *older != "" {
		list, err := a.Store.ListSessions(e.ctx, store.Filter{})
		if err != nil {
			return err
		}
		cut := time.Now().Add(-age)
		for _, s := range list {
			if s.Started.Before(cut) {
				ids = append(ids, s.ID)
			}
		}
	} else {
		for _, p := range pos {
			id, err := a.Store.ResolveID(e.ctx, p)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		fmt.Fprintln(e.stdout, "no session to delete")
		return nil
	}
	if !*yes {
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
