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

// sessionsExportOptions are `prefrag sessions export`'s.
type sessionsExportOptions struct {
	IDs    []string // ids, unique prefixes or "last"
	All    bool     // every session that matches Filter
	Filter store.Filter
	Format string
	Path   string // "" or "-": stdout
	Force  bool
}

func parseSessionsExport(e *env, args []string) (*sessionsExportOptions, error) {
	fs := flag.NewFlagSet("sessions export", flag.ContinueOnError)
	o := &sessionsExportOptions{}
	fs.StringVar(&o.Format, "format", export.FormatMarkdown, formatFlagHelp())
	fs.StringVar(&o.Path, "o", "", "file or folder to write (default: stdout)")
	fs.BoolVar(&o.Force, "force", false, "replace an existing file")
	fs.BoolVar(&o.All, "all", false, "export every session that matches the filters (default: answered ones)")
	filter := sessionFilterFlags(fs)
	ids, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "sessions export ID... | --all [filters] --format "+strings.Join(export.FormatNames(), "|")+" [-o PATH] [--force]")
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if _, ok := export.LookupFormat(o.Format); !ok {
		return nil, usagef("--format must be one of %s, not %q", strings.Join(export.FormatNames(), ", "), o.Format)
	}
	if len(ids) == 0 && !o.All {
		return nil, usagef("name the sessions to export, or pass --all (with --since, --label, --corpus … to filter)")
	}
	o.IDs = ids
	if o.All {
		if o.Filter, err = filter(); err != nil {
			return nil, err
		}
		if o.Filter.Status == "" {
			o.Filter.Status = store.StatusAnswered
		}
	}
	return o, nil
}

func runSessionsExport(e *env, o *sessionsExportOptions) error {
	a, err := openSessionsApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	ids, err := exportIDs(e, a, o)
	if err != nil {
		return err
	}
	// A session that cannot be read whole (a bad event row, a damaged page)
	// is skipped and named on stderr; the others are exported and the exit
	// status (1) says the export is incomplete.
	recs, skipped, err := export.Gather(e.ctx, a.Store, ids)
	if err != nil {
		return err
	}
	reportSkipped(e, skipped)
	if len(recs) == 0 {
		return fmt.Errorf("none of the %s could be read (listed above); nothing was exported", plural.N(len(ids), "session"))
	}
	where := "stdout"
	if o.Path == "" || o.Path == "-" {
		if err := export.Write(e.stdout, o.Format, recs...); err != nil {
			return err
		}
	} else {
		path, err := export.Save(o.Path, o.Format, o.Force, recs...)
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

// exportIDs are the ids of the sessions an export names: those given
// ("last" read as the newest), then with --all those matching the filter.
func exportIDs(e *env, a *app.App, o *sessionsExportOptions) ([]string, error) {
	var ids []string
	for _, ref := range o.IDs {
		id, err := lastSession(e, a, ref)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if !o.All {
		return ids, nil
	}
	list, err := a.Store.ListSessions(e.ctx, o.Filter)
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	if len(ids) == 0 {
		return nil, errors.New("no session matches those filters")
	}
	return ids, nil
}

// reportSkipped names on stderr each session an export skipped and why;
// a damaged database is explained once.
func reportSkipped(e *env, skipped []export.Skipped) {
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

// sessionsImportOptions are `prefrag sessions import`'s.
type sessionsImportOptions struct {
	File string // a JSON export
}

func parseSessionsImport(e *env, args []string) (*sessionsImportOptions, error) {
	fs := flag.NewFlagSet("sessions import", flag.ContinueOnError)
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "sessions import FILE.json")
	}
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, usagef("usage: prefrag sessions import FILE.json (a JSON export)")
	}
	return &sessionsImportOptions{File: pos[0]}, nil
}

func runSessionsImport(e *env, o *sessionsImportOptions) error {
	f, err := os.Open(o.File)
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
		return fmt.Errorf("cannot import %s: %w", o.File, err)
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
