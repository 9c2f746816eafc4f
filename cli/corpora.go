package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
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
	reembed := fs.Bool("reembed", false, "embed every passage again with the embedding model (new vectors replace the old ones once complete); PATHs may be left out")
	ef := config.BindSettingFlags(fs, e.cfg, "embed_model", "embed_url", "embed_llm")
	qa := bindIndexQAFlags(fs)
	paths, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "index [--corpus NAME] [--embed-model M] PATH...  |  index --reembed [--corpus NAME] [--embed-model M]")
		return err
	}
	if err != nil {
		return err
	}
	if err := ef.Apply(); err != nil {
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
	if len(paths) == 0 && !*reembed {
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
	opts := local.IndexOptions{IncludeExports: *includeExports, Reembed: *reembed}
	if err := indexEmbedder(e, *corpus, &opts); err != nil {
		return err
	}
	prog := newProgressLine(e.stderr)
	opts.Progress = prog.update
	rep, err := catalog.Index(e.ctx, e.cfg.CorporaDir(), *corpus, paths, opts)
	prog.done()
	embedErr := rep.Vectors != nil && err != nil && !errors.Is(err, context.Canceled) && app.IsEmbedFailure(err)
	if err != nil && !errors.Is(err, context.Canceled) && !embedErr {
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
		printVectors(e, rep)
	}
	if embedErr {
		return fmt.Errorf("the text index of corpus %s is up to date but its vectors are not: %w — run the same command again when the embedding server answers", rep.Corpus, err)
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
	if pr.Phase == local.PhaseEmbedding {
		p.show(embeddingLine(pr))
		return
	}
	eta := ""
	if pr.FilesDone > 0 && pr.FilesTotal > pr.FilesDone {
		left := time.Duration(float64(pr.Elapsed) / float64(pr.FilesDone) * float64(pr.FilesTotal-pr.FilesDone))
		eta = " · ETA " + left.Round(time.Second).String()
	}
	p.show(fmt.Sprintf("indexing: %d/%s · %s · %.0f passages/s%s", pr.FilesDone, plural.N(pr.FilesTotal, "file"), plural.N(pr.Passages, "passage"), pr.Rate, eta))
}

// show draws line over the previous one.
func (p *progressLine) show(line string) {
	fmt.Fprintf(p.w, "\r%-*s", p.wide, line)
	if len(line) > p.wide {
		p.wide = len(line)
	}
}

// embeddingLine is the progress of an ingest's embedding part: passages
// placed of those to do, files, passages embedded per second, and the time
// left at that rate.
func embeddingLine(pr local.Progress) string {
	eta := ""
	if pr.Rate > 0 && pr.EmbedTotal > pr.EmbedDone {
		eta = " · ETA " + (time.Duration(float64(pr.EmbedTotal-pr.EmbedDone)/pr.Rate) * time.Second).Round(time.Second).String()
	}
	return fmt.Sprintf("embedding: %d/%s · %d/%s · %.0f passages/s%s", pr.EmbedDone, plural.N(pr.EmbedTotal, "passage"),
		pr.FilesDone, plural.N(pr.FilesTotal, "file"), pr.Rate, eta)
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
		return runCorporaCommand(e, dir, pos, *yes)
	}
	infos, err := catalog.List(dir)
	if err != nil {
		return err
	}
	switch {
	case *names:
		for _, in := range infos {
			fmt.Fprintln(e.stdout, in.Name)
		}
		return nil
	case *asJSON:
		return writeCorporaJSON(e, infos, remoteRows(e.ctx, e, infos))
	case len(infos) == 0:
		fmt.Fprintln(e.stdout, "no corpora yet — create one with: prefrag index --corpus NAME FOLDER")
		return nil
	}
	return writeCorporaTable(e, infos, remoteRows(e.ctx, e, infos))
}

// runCorporaCommand runs `corpora pin|unpin|rm …`.
func runCorporaCommand(e *env, dir string, pos []string, yes bool) error {
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
		return removeCorpus(e, dir, pos[1], yes)
	}
	return usagef("unknown corpora command %q (add, pin, unpin, rm)", pos[0])
}

// writeCorporaJSON prints one JSON object per corpus.
func writeCorporaJSON(e *env, infos []catalog.Info, remotes map[string]remoteRow) error {
	enc := json.NewEncoder(e.stdout)
	for _, in := range infos {
		obj := map[string]any{"name": in.Name, "documents": in.Stats.Documents, "passages": in.Stats.Passages,
			"size": in.Stats.SizeBytes, "updated": in.Stats.Updated, "pinned": in.Pinned, "busy": in.Busy}
		if in.Problem != "" {
			obj["damaged"], obj["problem"] = in.Damaged, in.Problem
		}
		if in.Vectors != nil {
			obj["vectors"] = in.Vectors
		}
		if in.Remote != "" {
			r, ok := remotes[in.Name]
			remoteJSON(obj, in, r, ok)
		}
		if err := enc.Encode(obj); err != nil {
			return err
		}
	}
	return nil
}

// writeCorporaTable prints the corpora as a table, then the details of
// the remote ones and one line per corpus that cannot be read.
func writeCorporaTable(e *env, infos []catalog.Info, remotes map[string]remoteRow) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDOCUMENTS\tPASSAGES\tSIZE\tUPDATED\tPINNED")
	for _, in := range infos {
		fmt.Fprint(tw, corpusTableRow(in, remotes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printRemoteDetails(e, infos, remotes)
	for _, in := range infos {
		if v := in.Vectors; v != nil {
			state := ""
			if !v.Complete {
				state = "; its last embedding did not finish: index it again"
			}
			fmt.Fprintf(e.stdout, "%s: vectors of %s by %s (%d dimensions)%s\n", in.Name, plural.N(v.Vectors, "passage"), line(v.Model), v.Dims, state)
		}
	}
	for _, in := range infos {
		if in.Problem != "" {
			fmt.Fprintln(e.stderr, "prefrag:", oneLine(errors.New(in.Problem)))
		}
	}
	return nil
}

// corpusTableRow is one corpus's row of the table.
func corpusTableRow(in catalog.Info, remotes map[string]remoteRow) string {
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
		return remoteTableRow(in, r, ok, pin)
	}
	if in.Problem != "" {
		upd = "unreadable"
		if in.Damaged {
			upd = "DAMAGED"
		}
		return fmt.Sprintf("%s\t?\t?\t%s\t%s\t%s\n", in.Name, humanBytes(in.Stats.SizeBytes), upd, pin)
	}
	return fmt.Sprintf("%s\t%d\t%d\t%s\t%s\t%s\n", in.Name, in.Stats.Documents, in.Stats.Passages, humanBytes(in.Stats.SizeBytes), upd, pin)
}

func runSearch(e *env, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	corpus := fs.String("corpus", "", "corpus to search (default: the pinned corpus)")
	k := fs.Int("k", 10, "number of documents")
	asJSON := fs.Bool("json", false, "one JSON document per line (with bm25_rank and vector_rank when searched by meaning)")
	rf := config.BindSettingFlags(fs, e.cfg, "retrieval", "embed_model", "embed_url", "embed_llm")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "search [--corpus NAME] [-k N] [--retrieval bm25|hybrid|dense] [--json] QUERY")
		return err
	}
	if err != nil {
		return err
	}
	if err := rf.Apply(); err != nil {
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
		score := fmt.Sprintf("%.3f", d.Score)
		if legs := d.LegNote(); legs != "" {
			score += " · " + legs
		}
		fmt.Fprintf(e.stdout, "%2d. %s  (%s)  %s\n    %s\n", i+1, line(d.DisplayTitle()), score, line(d.Ref()),
			textsafe.Truncate(line(d.Text), 200))
	}
	return nil
}

func searchLocal(e *env, name, query string, k int) ([]sources.Document, error) {
	a := &app.App{Cfg: e.cfg}
	c, err := a.OpenLocal(e.cfg.Settings, name, map[string]*app.Embedder{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	docs, err := c.Search(e.ctx, query, k)
	if errors.Is(err, sources.ErrDegraded) {
		// Searched by words only: the documents stand, the reason is said.
		fmt.Fprintln(e.stderr, "prefrag: note:", oneLine(err))
		return docs, nil
	}
	return docs, err
}

// indexEmbedder sets the embedder of an ingest: the configured embedding
// model, else the corpus's own (its vectors are kept current). --reembed
// needs one of them.
func indexEmbedder(e *env, corpus string, opts *local.IndexOptions) error {
	a := &app.App{Cfg: e.cfg}
	if opts.Reembed {
		if _, err := os.Stat(filepath.Join(e.cfg.CorporaDir(), corpus)); err != nil {
			return fmt.Errorf("no corpus named %q to embed again; create it with: prefrag index --corpus %s --embed-model MODEL PATH...", corpus, corpus)
		}
	}
	emb, err := a.IndexEmbedder(e.ctx, e.cfg.Settings, corpus)
	if err != nil {
		return fmt.Errorf("cannot embed corpus %s: %w", corpus, err)
	}
	if emb == nil {
		if opts.Reembed {
			return usagef("index --reembed needs an embedding model: pass --embed-model MODEL (corpus %s has no vectors yet)", corpus)
		}
		return nil
	}
	opts.Embed = emb
	return nil
}

// printVectors says what the embedding part of an ingest did.
func printVectors(e *env, rep local.Report) {
	v := rep.Vectors
	if v == nil {
		return
	}
	what := "embedded"
	if v.Reembed {
		what = "embedded again"
	}
	fmt.Fprintf(e.stdout, "vectors: %s %s with %s (%d dimensions), %s reused (%s, %s, %.1fs)\n",
		plural.N(v.Embedded, "passage"), what, line(v.Model), v.Dims, plural.N(v.Reused, "vector"),
		plural.N(v.Calls, "embedding call"), plural.N(v.Tokens, "token"), v.Duration.Seconds())
	state := "all of them"
	if !v.Complete {
		state = "not all yet: run the same command again to finish"
	}
	fmt.Fprintf(e.stdout, "corpus %s has vectors for %s (%s)\n", rep.Corpus, plural.N(v.Vectors, "passage"), state)
	if v.Stale > 0 {
		fmt.Fprintf(e.stdout, "%s changed without new vectors: pass --embed-model %s to embed %s\n", plural.N(v.Stale, "file"), line(v.Model), plural.Noun(v.Stale, "it", "them"))
	}
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

// vectorsLine says in one sentence what the embedding part of an ingest
// did ("" when the corpus has no vectors).
func vectorsLine(rep local.Report) string {
	v := rep.Vectors
	if v == nil {
		return ""
	}
	state := "all passages have one"
	if !v.Complete {
		state = "not all passages have one yet: index again to finish"
	}
	return fmt.Sprintf("Embedded %s with %s (%s reused); %s.", plural.N(v.Embedded, "passage"), line(v.Model), plural.N(v.Reused, "vector"), state)
}
