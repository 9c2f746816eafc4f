package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// IndexOptions tune an ingest.
type IndexOptions struct {
	// Progress, when set, is called after every file and every flushed
	// batch, from the indexing goroutine.
	Progress func(Progress)
	// Writer tunes batching, merging, settling and memory (the zero value:
	// the defaults).
	Writer WriterOptions
	// Created, when set, is called once when this run created the corpus,
	// right after creating it and before anything is indexed (the
	// catalogue pins a home's first corpus there).
	Created func()
	// IncludeExports indexes files prefrag exported (sessions export, the
	// workspace's export dialog) like any other; by default they are
	// skipped (Report.Exports) and any earlier passages of them dropped.
	IncludeExports bool
	// Embed, when set, embeds after the text index is written every
	// passage whose file has no vectors of its current version (embed.go);
	// vectors of another model are refused (*EmbedModelError) unless
	// Reembed, which embeds every passage again into new vectors that
	// replace the ones in use once complete. Without Embed, a corpus's
	// vectors only lose the files gone from it.
	Embed   Embedder
	Reembed bool
}

// PhaseEmbedding is the Phase of an ingest's embedding part.
const PhaseEmbedding = "embedding"

// Progress is a snapshot of a running ingest.
type Progress struct {
	// Phase is "" while files are read, PhaseEmbedding while passages are
	// embedded (then FilesDone and FilesTotal count the files embedded,
	// Rate is passages embedded per second).
	Phase      string
	FilesDone  int
	FilesTotal int
	// Passages added so far in this run.
	Passages int64
	// File is the file being read ("" between files).
	File    string
	Elapsed time.Duration
	// Rate is passages added per second so far.
	Rate float64
	// While embedding: passages placed (embedded, or with a vector of the
	// same text from before) of EmbedTotal, and passages sent to the
	// server.
	EmbedDone, EmbedTotal, Embedded int64
}

// Failure is a file, or a line of a .jsonl file, that could not be indexed.
type Failure struct {
	Path string `json:"path"`
	// Line is the .jsonl line number, 0 when the whole file failed.
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	// Unchanged marks a line an earlier run left out of a file this run
	// found unchanged: its document is still missing.
	Unchanged bool `json:"unchanged,omitempty"`
}

func (f Failure) String() string {
	s := fmt.Sprintf("%s: %s", f.Path, f.Reason)
	if f.Line > 0 {
		s = fmt.Sprintf("%s:%d: %s", f.Path, f.Line, f.Reason)
	}
	if f.Unchanged {
		s += " (unchanged since an earlier run: still not in the corpus)"
	}
	return s
}

// keptFailures reports again the lines an earlier run left out of the
// unchanged file path (entry e).
func keptFailures(rep *Report, path string, e *fileEntry) {
	for _, s := range e.Skipped {
		rep.Failed = append(rep.Failed, Failure{Path: path, Line: s.Line, Reason: s.Reason, Unchanged: true})
	}
	if e.MoreSkipped > 0 {
		rep.Failed = append(rep.Failed, Failure{Path: path, Reason: fmt.Sprintf("%d more lines were left out", e.MoreSkipped), Unchanged: true})
	}
}

// Report says what an ingest did.
type Report struct {
	Corpus string `json:"corpus"`
	// Files is the number of supported files found under the paths.
	Files     int `json:"files"`
	Indexed   int `json:"indexed"`   // files read and (re)indexed
	Unchanged int `json:"unchanged"` // files skipped: same size, time or content
	Removed   int `json:"removed"`   // files gone from disk, dropped from the corpus
	// Exports counts files skipped because prefrag wrote them (an export
	// carries internal/exportmark's mark); IndexOptions.IncludeExports
	// takes them in.
	Exports int `json:"exports_skipped,omitempty"`
	// Kept counts indexed files this run could not read or find (an
	// unreadable folder or file) but could not confirm gone either: their
	// passages are kept as they were.
	Kept int `json:"kept,omitempty"`
	// Incomplete is set when a folder or file could not be read because of
	// the system (permission denied, I/O error): the corpus may be stale
	// for those paths. Files that cannot be parsed do not set it.
	Incomplete bool `json:"incomplete,omitempty"`
	// Passages and Documents added by this run.
	Passages  int64         `json:"passages"`
	Documents int64         `json:"documents"`
	Failed    []Failure     `json:"failed,omitempty"`
	Duration  time.Duration `json:"duration_ns"`
	// Segments is the number of index segments after the run, merged down
	// to SettleSegments; Merge is how long that merge took (in Duration).
	Segments int           `json:"segments,omitempty"`
	Merge    time.Duration `json:"merge_ns,omitempty"`
	// Pinned is set when this run created the first corpus of the home,
	// which is pinned automatically (set by catalog.Index).
	Pinned bool `json:"pinned,omitempty"`
	// Stats describe the whole corpus afterwards.
	Stats Stats `json:"stats"`
	// Vectors says what the embedding part did (nil for a corpus without
	// vectors and no embedder).
	Vectors *VectorReport `json:"vectors,omitempty"`
}

// supported file extensions.
var supported = map[string]bool{
	".txt": true, ".md": true, ".markdown": true, ".jsonl": true,
	".html": true, ".htm": true, ".docx": true, ".pdf": true, ".epub": true,
}

// Index ingests files and folders (recursively) into corpus name under dir,
// creating it if needed. Unchanged files are skipped, changed ones replaced,
// and files that were indexed from these paths but are confirmed gone are
// removed. A file that cannot be read is listed in Report.Failed and never
// stops the run; a folder or file that cannot be read keeps what was indexed
// from it (Report.Kept, Report.Incomplete). On cancellation the work done so
// far is kept (a later run resumes) and ctx.Err() is returned with the
// partial report.
func Index(ctx context.Context, dir, name string, paths []string, opts IndexOptions) (Report, error) {
	fresh := !exists(filepath.Join(dir, name))
	if err := checkEmbedModel(filepath.Join(dir, name), name, opts); err != nil {
		return Report{Corpus: name}, err
	}
	w, err := OpenWriter(dir, name, opts.Writer)
	if err != nil {
		return Report{Corpus: name}, err
	}
	if fresh && opts.Created != nil {
		opts.Created()
	}
	restore := limitIngestMemory(opts.Writer)
	rep, err := w.Index(ctx, paths, opts)
	restore()
	if err == nil {
		start := time.Now()
		rep.Segments, err = w.Settle(ctx)
		rep.Merge = time.Since(start)
		rep.Duration += rep.Merge
	}
	if err == nil {
		rep.Vectors, err = w.syncVectors(ctx, opts, &progressReporter{opts: opts})
		if rep.Vectors != nil {
			rep.Duration += rep.Vectors.Duration
		}
	}
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if st, serr := statsAt(filepath.Join(dir, name), name); serr == nil {
			rep.Stats = st
		}
	}
	return rep, err
}

type foundFile struct {
	path  string
	size  int64
	mtime time.Time
}

// Index ingests paths into the writer's corpus; see the package function.
// A panic of the index library (a damaged index, a full disk) is an error.
func (w *Writer) Index(ctx context.Context, paths []string, opts IndexOptions) (_ Report, err error) {
	defer recoverWrite(w.name, w.path, &err)
	start := time.Now()
	rep := Report{Corpus: w.name}
	roots, files := w.walk(paths, &rep)
	rep.Files = len(files)

	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.path] = true
	}
	indexed, err := w.indexedFiles()
	if err != nil {
		return rep, err
	}
	for _, f := range indexed {
		if seen[f] || !underAny(f, roots) {
			continue
		}
		if live, err := w.hasFile(f); err != nil || !live {
			if err != nil {
				return rep, err
			}
			continue // removed before; its name lingers until a merge
		}
		if !confirmedGone(f) {
			rep.Kept++
			continue
		}
		if err := w.removeFile(f); err != nil {
			return rep, err
		}
		rep.Removed++
	}

	prog := progressReporter{opts: opts, start: start, total: len(files), rep: &rep}
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return w.stop(&rep, start, err)
		}
		prog.file = f.path
		if err := w.ingestFile(ctx, f, &rep, &prog); err != nil {
			if ctx.Err() != nil {
				return w.stop(&rep, start, ctx.Err())
			}
			return rep, err
		}
		prog.done = i + 1
		prog.file = ""
		prog.report(true)
	}
	if err := w.sync(); err != nil {
		return rep, err
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// stop ends a cancelled run: what was finished is flushed, so the next run
// resumes after it.
func (w *Writer) stop(rep *Report, start time.Time, cause error) (Report, error) {
	if err := w.sync(); err != nil {
		return *rep, err
	}
	rep.Duration = time.Since(start)
	return *rep, cause
}

// ingestFile indexes one file unless it is unchanged.
func (w *Writer) ingestFile(ctx context.Context, f foundFile, rep *Report, prog *progressReporter) error {
	e, err := w.entry(f.path)
	if err != nil {
		return err
	}
	if !prog.opts.IncludeExports && isExport(f.path) {
		// prefrag's own output (web text, earlier answers) is never a
		// source: skipped, and dropped if an earlier run took it in.
		rep.Exports++
		if e != nil {
			return w.removeFile(f.path)
		}
		return nil
	}
	if e != nil && e.Complete && e.Size == f.size && !retitled(f.path, e) {
		if e.ModTime == f.mtime.UnixNano() {
			rep.Unchanged++
			keptFailures(rep, f.path, e)
			return nil
		}
		if h, herr := hashFile(ctx, f.path); herr == nil && h == e.Hash {
			touched := *e
			touched.ModTime = f.mtime.UnixNano()
			w.touchFile(f.path, touched)
			rep.Unchanged++
			keptFailures(rep, f.path, e)
			return nil
		}
	}
	if e != nil {
		if err := canOpen(f.path); err != nil {
			// Changed but unreadable: the indexed version stays.
			rep.Failed = append(rep.Failed, Failure{Path: f.path, Reason: unreadableReason(err, false)})
			rep.Incomplete = true
			rep.Kept++
			return nil
		}
		if err := w.removeFile(f.path); err != nil {
			return err
		}
	}
	w.beginFile(f.path, f.size, f.mtime)
	before := w.entries[f.path]
	var beforeDocs int64
	if before != nil {
		beforeDocs = before.Documents
	}
	x := extraction{w: w, ctx: ctx, path: f.path, rep: rep, prog: prog}
	hash, err := x.run()
	if err != nil {
		if rerr := w.removeFile(f.path); rerr != nil {
			return rerr
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var fatal *writeError
		if errors.As(err, &fatal) {
			return fatal.err
		}
		if isUnreadable(err) {
			rep.Incomplete = true
		}
		rep.Failed = append(rep.Failed, Failure{Path: f.path, Reason: err.Error()})
		return nil
	}
	w.finishFile(f.path, hash)
	rep.Indexed++
	if e := w.entries[f.path]; e != nil {
		rep.Documents += e.Documents - beforeDocs
	}
	return nil
}

// walk resolves the paths to absolute ones and lists the supported files
// under them, sorted. Problems are recorded in rep.
func (w *Writer) walk(paths []string, rep *Report) (roots []string, files []foundFile) {
	seen := make(map[string]bool)
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			rep.Failed = append(rep.Failed, Failure{Path: p, Reason: err.Error()})
			continue
		}
		info, err := os.Stat(abs)
		if err != nil {
			reason := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				// Gone: its files (if any were indexed) are removed.
				roots = append(roots, abs)
				reason = "no such file or directory"
			} else {
				rep.Incomplete = true
			}
			rep.Failed = append(rep.Failed, Failure{Path: abs, Reason: reason})
			continue
		}
		roots = append(roots, abs)
		if !info.IsDir() {
			if !supported[strings.ToLower(filepath.Ext(abs))] {
				rep.Failed = append(rep.Failed, Failure{Path: abs, Reason: "unsupported file type (use .txt, .md, .jsonl, .html, .docx or .pdf)"})
				continue
			}
			if info.Mode().IsRegular() && !seen[abs] {
				seen[abs] = true
				files = append(files, foundFile{path: abs, size: info.Size(), mtime: info.ModTime()})
			}
			continue
		}
		_ = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				// A folder that cannot be listed keeps what was indexed
				// from it: its files are not seen, and not confirmed gone.
				reason := err.Error()
				if !errors.Is(err, fs.ErrNotExist) {
					rep.Incomplete = true
					reason = unreadableReason(err, d == nil || d.IsDir())
				}
				rep.Failed = append(rep.Failed, Failure{Path: path, Reason: reason})
				if d != nil && d.IsDir() && path != abs {
					return fs.SkipDir
				}
				return nil
			}
			if path != abs && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || !d.Type().IsRegular() || seen[path] {
				return nil
			}
			if !supported[strings.ToLower(filepath.Ext(path))] {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				reason := err.Error()
				if !errors.Is(err, fs.ErrNotExist) {
					rep.Incomplete = true
					reason = unreadableReason(err, false)
				}
				rep.Failed = append(rep.Failed, Failure{Path: path, Reason: reason})
				return nil
			}
			seen[path] = true
			files = append(files, foundFile{path: path, size: info.Size(), mtime: info.ModTime()})
			return nil
		})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return roots, files
}

func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

type progressReporter struct {
	opts        IndexOptions
	start       time.Time
	last        time.Time
	total, done int
	file        string
	rep         *Report
}

// report calls the Progress callback; within a file at most ten times a
// second.
func (p *progressReporter) report(force bool) {
	if p.opts.Progress == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	rate := 0.0
	if el > 0 {
		rate = float64(p.rep.Passages) / el.Seconds()
	}
	p.opts.Progress(Progress{FilesDone: p.done, FilesTotal: p.total, Passages: p.rep.Passages, File: p.file, Elapsed: el, Rate: rate})
}
