package cli

import (
	"errors"
	"flag"
	"fmt"
	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
	"os"
	"strings"

	"github.com/prefrag/prefrag/store"
	"github.com/prefrag/prefrag/store/export"
)

func sessionsExport(e *env, args []string) error {
	fs := flag.NewFlagSet("sessions export", flag.ContinueOnError)
	format := fs.String("format", export.FormatMarkdown, formatFlagHelp())
	out := fs.String("o", "", "file or folder to write (default: stdout)")
	force := fs.Bool("force", false, "replace an existing file")
	all := fs.Bool("all", false, "export every session that matches the filters (default: answered ones)")
	filter := sessionFilterFlags(fs)
	ids, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "sessions export ID... | --all [filters] --format "+strings.Join(export.FormatNames(), "|")+" [-o PATH] [--force]")
		return err
	}
	if err != nil {
		return err
	}
	if _, ok := export.LookupFormat(*format); !ok {
		return usagef("--format must be one of %s, not %q", strings.Join(export.FormatNames(), ", "), *format)
	}
	if len(ids) == 0 && !*all {
		return usagef("name the sessions to export, or pass --all (with --since, --label, --corpus … to filter)")
	}
	a, err := openSessionsApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	for i, id := range ids {
		if ids[i], err = lastSession(e, a, id); err != nil {
			return err
		}
	}
	if *all {
		f, err := filter()
		if err != nil {
			return err
		}
		if f.Status == "" {
			f.Status = store.StatusAnswered
		}
		list, err := a.Store.ListSessions(e.ctx, f)
		if err != nil {
			return err
		}
		for _, s := range list {
			ids = append(ids, s.ID)
		}
		if len(ids) == 0 {
			return errors.New("no session matches those filters")
		}
	}
	// A session that cannot be read whole (a bad event row, a damaged page)
	// is skipped and named on stderr; the others are exported and the exit
	// status (1) says the export is incomplete.
	recs, skipped, err := export.Gather(e.ctx, a.Store, ids)
	if err != nil {
		return err
	}
	advised := false
	for _, sk := range skipped {
		msg := oneLine(sk.Err)
		var bad *store.BadEventError
		if errors.As(sk.Err, &bad) {
			msg = oneLine(errors.New(bad.What()))
		}
		if errors.Is(sk.Err, store.ErrDamaged) {
			if advised {
				msg = "the database file is damaged there (see above)"
			}
			advised = true
		}
		fmt.Fprintf(e.stderr, "prefrag: skipped session %s: %s\n", textsafe.Literal(sk.ID), msg)
	}
	if len(recs) == 0 {
		return fmt.Errorf("none of the %s could be read (listed above); nothing was exported", plural.N(len(ids), "session"))
	}
	where := "stdout"
	if *out == "" || *out == "-" {
		if err := export.Write(e.stdout, *format, recs...); err != nil {
			return err
		}
	} else {
		path, err := export.Save(*out, *format, *force, recs...)
		var exists *export.TargetExistsError
		if errors.As(err, &exists) {
			return fmt.Errorf("%s exists; pass --force to replace it", exists.Path)
		}
		if err != nil {
			return err
		}
		where = path
		if len(skipped) == 0 {
			fmt.Fprintf(e.stderr, "prefrag: wrote %s to %s\n", plural.N(len(recs), "session"), path)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(e.stderr, "prefrag: export incomplete: wrote %d of %s to %s; %d skipped (listed above)\n", len(recs), plural.N(len(ids), "session"), line(where), len(skipped))
		return errExportIncomplete
	}
	return nil
}

// formatFlagHelp is --format's help: each format of store/export's table
// with what it writes.
func formatFlagHelp() string {
	parts := make([]string, len(export.Formats))
	for i, f := range export.Formats {
		parts[i] = f.Name + " (" + f.Help
		if f.PerSession {
			parts[i] += "; one file per session"
		}
		parts[i] += ")"
	}
	return strings.Join(parts, ", ")
}

func sessionsImport(e *env, args []string) error {
	fs := flag.NewFlagSet("sessions import", flag.ContinueOnError)
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "sessions import FILE.json")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: prefrag sessions import FILE.json (a JSON export)")
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	ids, err := export.Import(e.ctx, a.Store, f)
	if errors.Is(err, store.ErrBadID) || errors.Is(err, store.ErrTakesOver) || errors.Is(err, export.ErrFormat) {
		return fmt.Errorf("cannot import %s: %w", pos[0], err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "imported %s\n", plural.N(len(ids), "session"))
	return nil
}

// openSession opens the app and reads one session (id or unique prefix).
// When some stored events cannot be decoded it returns the open app, the
// record of every readable event and the *store.BadEventError.
func openSession(e *env, id string) (*app.App, *store.Record, error) {
	a, err := openSessionsApp(e)
	if err != nil {
		return nil, nil, err
	}
	if id, err = lastSession(e, a, id); err != nil {
		a.Close()
		return nil, nil, err
	}
	rec, err := a.Store.GetSession(e.ctx, id)
	if err != nil && (rec == nil || !errors.Is(err, store.ErrBadEvent)) {
		a.Close()
		return nil, nil, err
	}
	return a, rec, err
}

// lastSession reads "last" (as --continue takes it) as the newest
// session's id; any other reference is returned as given.
func lastSession(e *env, a *app.App, ref string) (string, error) {
	if ref != app.LastSession {
		return ref, nil
	}
	id, err := a.Store.LatestSession(e.ctx)
	if errors.Is(err, store.ErrNotFound) {
		return "", errors.New("there is no session yet, so none is the last")
	}
	return id, err
}
