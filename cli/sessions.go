package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/suggest"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/store"
)

// sessionsCommand is `prefrag sessions SUBCOMMAND`.
func sessionsCommand(e *env, args []string) error {
	if len(args) == 0 {
		args = []string{"list"}
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "list", "ls":
		return newCmd(parseSessionsList, runSessionsList)(e, rest)
	case "show":
		return newCmd(parseSessionsShow, runSessionsShow)(e, rest)
	case "search":
		return newCmd(parseSessionsSearch, runSessionsSearch)(e, rest)
	case "export":
		return newCmd(parseSessionsExport, runSessionsExport)(e, rest)
	case "import":
		return newCmd(parseSessionsImport, runSessionsImport)(e, rest)
	case "rerun":
		return newCmd(parseSessionsRerun, runSessionsRerun)(e, rest)
	case "rm":
		return newCmd(parseSessionsRm, runSessionsRm)(e, rest)
	case "-h", "--help", "help":
		sessionsHelp(e.stdout)
		return nil
	}
	if near := suggest.Closest(sub, []string{"list", "show", "search", "export", "import", "rerun", "rm"}); near != "" {
		return usagef("unknown sessions command %q — did you mean %s?", sub, near)
	}
	return usagef("unknown sessions command %q (list, show, search, export, import, rerun, rm)", sub)
}

func sessionFilterFlags(fs *flag.FlagSet) func() (store.Filter, error) {
	status := fs.String("status", "", "only sessions with this status (running, answered, failed, cancelled, interrupted)")
	label := fs.String("label", "", "only sessions with this self-evaluation label")
	since := fs.String("since", "", "only sessions started since this date (2006-01-02) or duration ago (72h)")
	corpus := fs.String("corpus", "", "only sessions that searched this corpus")
	text := fs.String("text", "", "only sessions whose question or answer contain these words")
	limit := fs.Int("n", 0, "at most N sessions (0: all)")
	return func() (store.Filter, error) {
		f := store.Filter{Status: *status, Label: *label, Corpus: *corpus, Text: *text, Limit: *limit}
		if *since != "" {
			if d, err := time.ParseDuration(*since); err == nil {
				f.Since = time.Now().Add(-d)
			} else if t, err := time.ParseInLocation("2006-01-02", *since, time.Local); err == nil {
				f.Since = t
			} else {
				return f, usagef("--since takes a date like 2026-11-01 or a duration like 72h, not %q", *since)
			}
		}
		return f, nil
	}
}

// sessionsListOptions are `prefrag sessions list`'s.
type sessionsListOptions struct {
	Out    outputFlags
	Filter store.Filter
}

func parseSessionsList(e *env, args []string) (*sessionsListOptions, error) {
	fs := flag.NewFlagSet("sessions list", flag.ContinueOnError)
	out := bindJSON(fs, "one JSON object per line")
	filter := sessionFilterFlags(fs)
	if _, err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			helpFlags(e.stdout, fs, "sessions list [flags]")
		}
		return nil, err
	}
	f, err := filter()
	if err != nil {
		return nil, err
	}
	return &sessionsListOptions{Out: *out, Filter: f}, nil
}

func runSessionsList(e *env, o *sessionsListOptions) error {
	a, err := openSessionsApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	list, err := a.Store.ListSessions(e.ctx, o.Filter)
	if err != nil {
		return err
	}
	return printSessions(e, a.Store, list, o.Out.JSON)
}

func printSessions(e *env, st *store.Store, list []store.Session, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, s := range list {
			if err := enc.Encode(safeSession(s)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no sessions")
		return nil
	}
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	// Each id printed is its shortest unique prefix among all stored
	// sessions: typed back, it opens that session.
	short, err := st.ShortIDs(e.ctx, ids, store.MinShortID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tSTATUS\tLABEL\tMODEL\tQUESTION\tANSWER")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", textsafe.Literal(shortOr(short, s.ID)), s.Started.Local().Format("2006-01-02 15:04"), line(s.Status),
			line(s.Label), line(s.Model), threadQuestion(s, 50), oneLineTrunc(s.Answer, 40))
	}
	return tw.Flush()
}

// shortOr is id's short form from short, or the whole id.
func shortOr(short map[string]string, id string) string {
	if p, ok := short[id]; ok {
		return p
	}
	return id
}

func oneLineTrunc(s string, n int) string {
	return clean(textsafe.Truncate(strings.Join(strings.Fields(s), " "), n))
}

// sessionsShowOptions are `prefrag sessions show`'s.
type sessionsShowOptions struct {
	ID  string // an id, a unique prefix, or "last"
	Out outputFlags
}

func parseSessionsShow(e *env, args []string) (*sessionsShowOptions, error) {
	fs := flag.NewFlagSet("sessions show", flag.ContinueOnError)
	out := bindJSON(fs, "print the events exactly as `ask --json` did")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "sessions show ID|last [--json]")
	}
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, usagef("usage: prefrag sessions show ID|last [--json]")
	}
	return &sessionsShowOptions{ID: pos[0], Out: *out}, nil
}

func runSessionsShow(e *env, o *sessionsShowOptions) error {
	// A session with undecodable event rows is shown without them; the
	// error naming them comes last (exit 1).
	a, rec, err := openSession(e, o.ID)
	if a == nil {
		return err
	}
	defer a.Close()
	bad := err
	if o.Out.JSON {
		return errors.Join(writeJSONLines(e.stdout, safeLines(rec.Lines)), bad)
	}
	s := rec.Session
	fmt.Fprintf(e.stdout, "Session %s · %s · started %s", textsafe.Literal(s.ID), line(s.Status), s.Started.Local().Format(time.RFC1123))
	thread := s.Turns > 1
	switch {
	case thread:
		fmt.Fprint(e.stdout, threadTimes(rec))
	case s.Finished != nil:
		fmt.Fprintf(e.stdout, " · took %s", s.Finished.Sub(s.Started).Round(100*time.Millisecond))
	}
	fmt.Fprintln(e.stdout)
	out := newEventWriter(e.stdout, false, false)
	out.text.thread = thread
	for _, ev := range rec.Events {
		out.write(ev)
	}
	out.flush()
	if s.Status == store.StatusInterrupted {
		fmt.Fprintln(e.stdout, "\n(interrupted: the process that ran this session is gone; the events above are everything it recorded)")
	}
	return bad
}

// threadTimes says a thread's times, each labelled: the answering time of
// each turn and their sum (the turns' own counts), and the wall-clock time
// from the first question to the last answer, which includes the time
// between the turns.
func threadTimes(rec *store.Record) string {
	var per []string
	var total time.Duration
	for _, ev := range rec.Events {
		f, ok := ev.Payload.(engine.Final)
		if !ok || f.Counts == nil {
			continue
		}
		d := time.Duration(f.Counts.TotalMillis) * time.Millisecond
		total += d
		per = append(per, fmt.Sprintf("turn %d %s", engine.TurnOf(ev), d.Round(100*time.Millisecond)))
	}
	out := fmt.Sprintf(" · %d turns", rec.Session.Turns)
	if len(per) > 0 {
		out += fmt.Sprintf(" · answering took %s in all (%s)", total.Round(100*time.Millisecond), strings.Join(per, ", "))
	}
	if f := rec.Session.Finished; f != nil {
		out += fmt.Sprintf(" · %s from the first question to the last answer", f.Sub(rec.Session.Started).Round(time.Second))
	}
	return out
}

// sessionsSearchOptions are `prefrag sessions search`'s.
type sessionsSearchOptions struct {
	Words string
	Out   outputFlags
}

func parseSessionsSearch(e *env, args []string) (*sessionsSearchOptions, error) {
	fs := flag.NewFlagSet("sessions search", flag.ContinueOnError)
	out := bindJSON(fs, "one JSON object per line")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "sessions search WORDS [--json]")
	}
	if err != nil {
		return nil, err
	}
	if len(pos) == 0 {
		return nil, usagef("usage: prefrag sessions search WORDS")
	}
	return &sessionsSearchOptions{Words: strings.Join(pos, " "), Out: *out}, nil
}

func runSessionsSearch(e *env, o *sessionsSearchOptions) error {
	a, err := openSessionsApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	list, err := a.Store.SearchSessions(e.ctx, o.Words)
	if err != nil {
		return err
	}
	return printSessions(e, a.Store, list, o.Out.JSON)
}
