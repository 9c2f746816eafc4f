package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

func runIndex(e *env, args []string) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	corpus := fs.String("corpus", "", "`NAME` of the corpus to ingest into (default: the pinned one; with none pinned, \""+defaultCorpus+"\", created and pinned; with --from-qa, \""+defaultCorpus+"\")")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	includeExports := fs.Bool("include-exports", false, "also index files prefrag exported (skipped by default: they hold earlier answers and web text)")
	qa := bindIndexQAFlags(fs)
	paths, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "index [--corpus NAME] PATH...")
		return err
	}
	if err != nil {
		return err
	}
	pinNew := false
	if *corpus == "" {
		if qa.active() {
			*corpus = defaultCorpus // a QA pool never goes into the analyst's corpus unasked
		} else if *corpus, pinNew, err = indexTarget(e.cfg.CorporaDir()); err != nil {
			return err
		}
	}
	if err := refuseRemoteIndex(e.cfg.CorporaDir(), *corpus); err != nil {
		return err
	}
	if qa.active() {
		if len(paths) > 0 {
			return usagef("index --from-qa takes no other paths")
		}
		return runIndexFromQA(e, *corpus, qa, *asJSON)
	}
	if len(paths) == 0 {
		return usagef("index needs at least one file or folder: prefrag index --corpus NAME PATH...")
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("cannot read %s: %w", p, errors.Unwrap(err))
		}
	}
	if err := local.ValidateName(*corpus); err != nil {
		return usagef("%v", err)
	}
	if err := os.MkdirAll(e.cfg.CorporaDir(), 0o755); err != nil {
		return err
	}
	prog := newProgressLine(e.stderr)
	rep, err := catalog.Index(e.ctx, e.cfg.CorporaDir(), *corpus, paths, local.IndexOptions{Progress: prog.update, IncludeExports: *includeExports})
	prog.done()
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	pinnedNow := false
	if pinNew && !rep.Pinned {
		if perr := catalog.Pin(e.cfg.CorporaDir(), *corpus); perr != nil {
			return fmt.Errorf("corpus %s was indexed but could not be pinned: %w", *corpus, perr)
		}
		pinnedNow, rep.Pinned = true, true
	}
	if *asJSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintln(e.stdout, string(b))
	} else {
		fmt.Fprintf(e.stdout, "corpus %s: %s found, %d indexed, %d unchanged, %d removed; %s added in %.1fs\n",
			rep.Corpus, plural.N(rep.Files, "file"), rep.Indexed, rep.Unchanged, rep.Removed, plural.N(rep.Passages, "passage"), rep.Duration.Seconds())
		fmt.Fprintf(e.stdout, "corpus %s now holds %s, %s (%s)\n", rep.Corpus, plural.N(rep.Stats.Documents, "document"), plural.N(rep.Stats.Passages, "passage"), humanBytes(rep.Stats.SizeBytes))
		if rep.Exports > 0 {
			fmt.Fprintf(e.stdout, "skipped %s prefrag exported (earlier answers are not sources); --include-exports indexes %s\n", plural.N(rep.Exports, "file"), plural.Noun(rep.Exports, "it", "them"))
		}
		if pinnedNow {
			fmt.Fprintf(e.stdout, "corpus %s is pinned (no corpus was pinned and no --corpus was given): `prefrag ask` searches it first; `prefrag corpora pin NAME` pins another\n", rep.Corpus)
		} else if rep.Pinned {
			fmt.Fprintf(e.stdout, "corpus %s is pinned (the first corpus of this home is pinned automatically): `prefrag ask` searches it first; `prefrag corpora unpin` undoes it\n", rep.Corpus)
		}
		if len(rep.Failed) > 0 {
			fmt.Fprintln(e.stdout, failedHeader(rep.Failed))
			for _, f := range rep.Failed {
				fmt.Fprintf(e.stdout, "  - %s\n", textsafe.ForTerminal(f.String()))
			}
		}

		if rep.Kept > 0 {
			fmt.Fprintf(e.stdout, "%s could not be read or found, and %s kept as %s\n", plural.Of(rep.Kept, "indexed file", "indexed files"), plural.Noun(rep.Kept, "is", "are"), plural.Noun(rep.Kept, "it was", "they were"))
		}
	}
	if errors.Is(err, context.Canceled) {
		return errors.New("indexing cancelled; run the same command again to resume")
	}
	if rep.Incomplete {
		return fmt.Errorf("indexing corpus %s was incomplete: some folders or files could not be read (listed above) and what was indexed from them is kept; make them readable and run the same command again", rep.Corpus)
	}
	return nil
}

// defaultCorpus is the corpus `index` creates when no --corpus is given and
// none is pinned.
const defaultCorpus = "default"

// indexTarget is the corpus `index PATH` fills when no --corpus is given:
// the pinned one, or defaultCorpus, which is then pinned (pin is true).
func indexTarget(dir string) (name string, pin bool, err error) {
	pinned, err := catalog.Pinned(dir)
	if err != nil {
		return "", false, err
	}
	if pinned != "" {
		return pinned, false, nil
	}
	return defaultCorpus, true, nil
}

// progressLine draws a single updating line on a terminal, and nothing
// elsewhere (logs and pipes stay clean).
type progressLine struct {
	mu   sync.Mutex
	w    *os.File
	tty  bool
	last time.Time
	wide int
}

func newProgressLine(w any) *progressLine {
	p := &progressLine{}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.w, p.tty = f, true
	}
	return p
}

func (p *progressLine) update(pr local.Progress) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 100*time.Millisecond && pr.FilesDone < pr.FilesTotal {
		return
	}
	p.last = time.Now()
	eta := ""
	if pr.FilesDone > 0 && pr.FilesTotal > pr.FilesDone {
		left := time.Duration(float64(pr.Elapsed) / float64(pr.FilesDone) * float64(pr.FilesTotal-pr.FilesDone))
		eta = " · ETA " + left.Round(time.Second).String()
	}
	line := fmt.Sprintf("indexing: %d/%s · %s · %.0f passages/s%s", pr.FilesDone, plural.N(pr.FilesTotal, "file"), plural.N(pr.Passages, "passage"), pr.Rate, eta)
	fmt.Fprintf(p.w, "\r%-*s", p.wide, line)
	if len(line) > p.wide {
		p.wide = len(line)
	}
}

func (p *progressLine) done() {
	if p.tty && p.wide > 0 {
		fmt.Fprintf(p.w, "\r%-*s\r", p.wide, "")
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func runCorpora(e *env, args []string) error {
	if rest, ok := corporaAddArgs(args); ok {
		return runCorporaAdd(e, rest)
	}
	fs := flag.NewFlagSet("corpora", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "one JSON object per corpus")
	yes := fs.Bool("yes", false, "with rm: delete without asking (needed when not on a terminal)")
	names := fs.Bool("names", false, "only the corpus names, one a line (for shell completion)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "corpora [--json] | corpora pin NAME | corpora unpin | corpora rm NAME [--yes] | "+corporaAddUsage)
		return err
	}
	if err != nil {
		return err
	}
	dir := e.cfg.CorporaDir()
	if len(pos) > 0 {
		switch pos[0] {
		case "pin":
			if len(pos) != 2 {
				return usagef("usage: prefrag corpora pin NAME")
			}
			if err := catalog.Pin(dir, pos[1]); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "pinned %s: it is searched first\n", pos[1])
			return nil
		case "unpin":
			if len(pos) != 1 {
				return usagef("usage: prefrag corpora unpin")
			}
			return unpinCorpus(e, dir)
		case "rm", "delete":
			if len(pos) != 2 {
				return usagef("usage: prefrag corpora rm NAME [--yes]")
			}
			return removeCorpus(e, dir, pos[1], *yes)
		default:
			return usagef("unknown corpora command %q (add, pin, unpin, rm)", pos[0])
		}
	}
	infos, err := catalog.List(dir)
	if err != nil {
		return err
	}
	if *names {
		for _, in := range infos {
			fmt.Fprintln(e.stdout, in.Name)
		}
		return nil
	}
	remotes := remoteRows(e.ctx, e, infos)
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, in := range infos {
			obj := map[string]any{"name": in.Name, "documents": in.Stats.Documents, "passages": in.Stats.Passages,
				"size": in.Stats.SizeBytes, "updated": in.Stats.Updated, "pinned": in.Pinned, "busy": in.Busy}
			if in.Problem != "" {
				obj["damaged"], obj["problem"] = in.Damaged, in.Problem
			}
			if in.Remote != "" {
				r, ok := remotes[in.Name]
				remoteJSON(obj, in, r, ok)
			}
			enc.Encode(obj)
		}
		return nil
	}
	if len(infos) == 0 {
		fmt.Fprintln(e.stdout, "no corpora yet — create one with: prefrag index --corpus NAME FOLDER")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDOCUMENTS\tPASSAGES\tSIZE\tUPDATED\tPINNED")
	for _, in := range infos {
		pin := ""
		if in.Pinned {
			pin = "*"
		}
		upd := "-"
		if !in.Stats.Updated.IsZero() {
			upd = in.Stats.Updated.Local().Format("2006-01-02 15:04")
		}
		if in.Busy {
			upd = "indexing…"
		}
		if r, ok := remotes[in.Name]; ok {
			fmt.Fprint(tw, remoteTableRow(in, r, ok, pin))
			continue
		}
		if in.Problem != "" {
			upd = "unreadable"
			if in.Damaged {
				upd = "DAMAGED"
			}
			fmt.Fprintf(tw, "%s\t?\t?\t%s\t%s\t%s\n", in.Name, humanBytes(in.Stats.SizeBytes), upd, pin)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", in.Name, in.Stats.Documents, in.Stats.Passages, humanBytes(in.Stats.SizeBytes), upd, pin)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printRemoteDetails(e, infos, remotes)
	for _, in := range infos {
		if in.Problem != "" {
			fmt.Fprintln(e.stderr, "prefrag:", oneLine(errors.New(in.Problem)))
		}
	}
	return nil
}

func runSearch(e *env, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	corpus := fs.String("corpus", "", "corpus to search (default: the pinned corpus)")
	k := fs.Int("k", 10, "number of documents")
	asJSON := fs.Bool("json", false, "one JSON document per line")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "search [--corpus NAME] [-k N] [--json] QUERY")
		return err
	}
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return usagef("search needs a query")
	}
	if *k < 1 || *k > 1000 {
		return usagef("-k must be between 1 and 1000")
	}
	name := *corpus
	if name == "" {
		a := &app.App{Cfg: e.cfg}
		names, err := a.CorpusOrder(e.cfg.Settings)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			if infos, _ := catalog.List(e.cfg.CorporaDir()); len(infos) > 0 {
				return errors.New("no corpus is pinned — name one with --corpus NAME, or pin one with: prefrag corpora pin NAME")
			}
			return errors.New("no corpus yet — create one with: prefrag index --corpus NAME FOLDER")
		}
		name = names[0]
	}
	var docs []sources.Document
	if catalog.IsRemote(e.cfg.CorporaDir(), name) {
		docs, err = searchRemote(e, name, query, *k)
	} else {
		docs, err = searchLocal(e, name, query, *k)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, d := range docs {
			enc.Encode(d.Sanitized())
		}
		return nil
	}
	if len(docs) == 0 {
		fmt.Fprintf(e.stdout, "no documents in %s match %q\n", name, query)
		return nil
	}
	for i, d := range docs {
		fmt.Fprintf(e.stdout, "%2d. %s  (%.3f)  %s\n    %s\n", i+1, line(d.DisplayTitle()), d.Score, line(d.Ref()),
			textsafe.Truncate(line(d.Text), 200))
	}
	return nil
}

func searchLocal(e *env, name, query string, k int) ([]sources.Document, error) {
	c, err := local.Open(e.cfg.CorporaDir(), name)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Search(e.ctx, query, k)
}

// failedHeader introduces the list of files that could not be read and of
// .jsonl lines left out.
func failedHeader(failed []local.Failure) string {
	files, lines := 0, 0
	for _, f := range failed {
		if f.Line > 0 {
			lines++
		} else {
			files++
		}
	}
	left := plural.N(lines, ".jsonl line") + " left out"
	switch {
	case lines == 0:
		return plural.N(files, "file") + " could not be read:"
	case files == 0:
		return left + ":"
	}
	return plural.N(files, "file") + " could not be read, " + left + ":"
}
