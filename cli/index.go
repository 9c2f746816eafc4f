package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

// indexOptions are `prefrag index`'s: the embedding settings are applied
// to the configuration.
type indexOptions struct {
	Corpus         string // "": the pinned corpus, else defaultCorpus (created and pinned)
	Out            outputFlags
	IncludeExports bool
	Reembed        bool
	QA             indexQAFlags // --from-qa and its flags
	Paths          []string
}

func parseIndex(e *env, args []string) (*indexOptions, error) {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	o := &indexOptions{}
	fs.StringVar(&o.Corpus, "corpus", "", "`NAME` of the corpus to ingest into (default: the pinned one; with none pinned, \""+defaultCorpus+"\", created and pinned; with --from-qa, \""+defaultCorpus+"\")")
	out := bindJSON(fs, "print the report as JSON")
	fs.BoolVar(&o.IncludeExports, "include-exports", false, "also index files prefrag exported (skipped by default: they hold earlier answers and web text)")
	fs.BoolVar(&o.Reembed, "reembed", false, "embed every passage again with the embedding model (new vectors replace the old ones once complete); PATHs may be left out")
	ef := config.BindSettingFlags(fs, e.cfg, "embed_model", "embed_url", "embed_llm")
	qa := bindIndexQAFlags(fs)
	paths, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, "index [--corpus NAME] [--embed-model M] PATH...  |  index --reembed [--corpus NAME] [--embed-model M]")
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := ef.Apply(); err != nil {
		return nil, err
	}
	o.Out, o.QA, o.Paths = *out, *qa, paths
	switch {
	case o.QA.active() && len(paths) > 0:
		return nil, usagef("index --from-qa takes no other paths")
	case !o.QA.active() && len(paths) == 0 && !o.Reembed:
		return nil, usagef("index needs at least one file or folder: prefrag index --corpus NAME PATH...")
	}
	return o, nil
}

func runIndex(e *env, o *indexOptions) error {
	corpus, pinNew := o.Corpus, false
	if corpus == "" {
		if o.QA.active() {
			corpus = defaultCorpus // a QA pool never goes into the analyst's corpus unasked
		} else {
			var err error
			if corpus, pinNew, err = indexTarget(e.cfg.CorporaDir()); err != nil {
				return err
			}
		}
	}
	if err := refuseRemoteIndex(e.cfg.CorporaDir(), corpus); err != nil {
		return err
	}
	if o.QA.active() {
		return runIndexFromQA(e, corpus, &o.QA, o.Out.JSON)
	}
	opts, err := prepareIndex(e, corpus, o)
	if err != nil {
		return err
	}
	prog := newProgressLine(e.stderr)
	opts.Progress = prog.update
	rep, err := catalog.Index(e.ctx, e.cfg.CorporaDir(), corpus, o.Paths, opts)
	prog.done()
	embedErr := rep.Vectors != nil && err != nil && !errors.Is(err, context.Canceled) && app.IsEmbedFailure(err)
	if err != nil && !errors.Is(err, context.Canceled) && !embedErr {
		return err
	}
	pinnedNow := false
	if pinNew && !rep.Pinned {
		if perr := catalog.Pin(e.cfg.CorporaDir(), corpus); perr != nil {
			return fmt.Errorf("corpus %s was indexed but could not be pinned: %w", corpus, perr)
		}
		pinnedNow, rep.Pinned = true, true
	}
	if o.Out.JSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintln(e.stdout, string(b))
	} else {
		printIndexReport(e, rep, pinnedNow)
	}
	return indexOutcome(rep, err, embedErr)
}

// prepareIndex checks the paths and the corpus name of an ingest into
// corpus, creates the corpora folder and returns the ingest's options.
func prepareIndex(e *env, corpus string, o *indexOptions) (local.IndexOptions, error) {
	opts := local.IndexOptions{IncludeExports: o.IncludeExports, Reembed: o.Reembed}
	for _, p := range o.Paths {
		if _, err := os.Stat(p); err != nil {
			return opts, fmt.Errorf("cannot read %s: %w", p, errors.Unwrap(err))
		}
	}
	if err := local.ValidateName(corpus); err != nil {
		return opts, usagef("%v", err)
	}
	if err := os.MkdirAll(e.cfg.CorporaDir(), 0o755); err != nil {
		return opts, err
	}
	return opts, indexEmbedder(e, corpus, &opts)
}

// printIndexReport says what an ingest did: files, passages, what was
// skipped, what is pinned, what failed and what the vectors are.
func printIndexReport(e *env, rep local.Report, pinnedNow bool) {
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

// indexOutcome is how an ingest whose report was printed ends: its
// vectors behind, cancelled, incomplete, or done (nil).
func indexOutcome(rep local.Report, err error, embedErr bool) error {
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
