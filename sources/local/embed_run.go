package local

import (
	"context"
	"sort"
	"time"

	"github.com/prefrag/prefrag/sources/local/vector"
)

// embedBatch is how many texts go to the embedder at once (it splits them
// into calls and runs them on the server's slots).
const embedBatch = 256

// embedRun embeds the passages of the files to do.
type embedRun struct {
	w    *Writer
	vw   *vector.Writer
	emb  Embedder
	todo map[string]*fileEntry
	rep  *VectorReport
	prog *progressReporter

	// locs are the records of each file's passages so far; left counts
	// the passages of each file not seen yet.
	locs map[string][]vector.Loc
	left map[string]int64
	// queue are the passages waiting for a vector, texts the distinct
	// texts among them.
	queue   []queued
	texts   []string
	textOf  map[vector.Hash]int
	started time.Time
	total   int64
	done    int64
}

type queued struct {
	file string
	at   int // index in locs[file]
	id   string
	hash vector.Hash
	text int // index in texts
}

func (e *embedRun) run(ctx context.Context) error {
	e.locs, e.left, e.textOf, e.started = map[string][]vector.Loc{}, map[string]int64{}, map[vector.Hash]int{}, time.Now()
	for f, entry := range e.todo {
		e.left[f] = entry.Passages
		e.total += entry.Passages
	}
	e.rep.Files = len(e.todo)
	e.progress()
	err := e.w.visitPassages(e.todo, func(file, id, title, text string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return e.add(ctx, file, id, embedText(title, text))
	})
	if err == nil {
		err = e.embedQueued(ctx)
	}
	if err != nil {
		// What was embedded is kept: files in progress are recorded as
		// partly done, and the next run takes them up again.
		if e.vw.Pending() > 0 {
			e.recordPartial()
		}
		return err
	}
	for f, entry := range e.todo {
		// Passages the manifest counted but the index no longer holds:
		// the file is done with what it has.
		if _, ok := e.vw.Files()[f]; !ok || e.left[f] > 0 {
			e.vw.SetFile(f, entry.Hash, e.locs[f])
		}
	}
	return nil
}

// add resolves one passage: a vector of the same text from before, or a
// place in the queue.
func (e *embedRun) add(ctx context.Context, file, id, text string) error {
	h := textHash(text)
	l, ok, err := e.vw.Lookup(h)
	if err != nil {
		return err
	}
	if ok {
		if l, err = e.vw.Reuse(l, h, id); err != nil {
			return err
		}
		e.rep.Reused++
		e.done++
		e.locs[file] = append(e.locs[file], l)
		e.passageDone(file)
		return e.maybeFlush()
	}
	ti, ok := e.textOf[h]
	if !ok {
		ti = len(e.texts)
		e.texts = append(e.texts, text)
		e.textOf[h] = ti
	}
	e.queue = append(e.queue, queued{file: file, at: len(e.locs[file]), id: id, hash: h, text: ti})
	e.locs[file] = append(e.locs[file], vector.Loc{Part: -1})
	if len(e.texts) >= embedBatch {
		return e.embedQueued(ctx)
	}
	return nil
}

// embedQueued embeds the queued texts and places their passages.
func (e *embedRun) embedQueued(ctx context.Context) error {
	if len(e.queue) == 0 {
		return nil
	}
	vecs, err := e.emb.Embed(ctx, e.texts, func(n int) {
		e.rep.Embedded += int64(n)
		e.progress()
	})
	if err != nil {
		return err
	}
	for _, q := range e.queue {
		l, err := e.vw.Add(q.hash, q.id, vecs[q.text])
		if err != nil {
			return err
		}
		e.locs[q.file][q.at] = l
		e.done++
		e.passageDone(q.file)
	}
	e.queue, e.texts = e.queue[:0], e.texts[:0]
	clear(e.textOf)
	e.progress()
	return e.maybeFlush()
}

// passageDone counts a placed passage; a file with all its passages placed
// (and none queued) is recorded.
func (e *embedRun) passageDone(file string) {
	e.left[file]--
	if e.left[file] > 0 {
		return
	}
	for _, l := range e.locs[file] {
		if l.Part < 0 {
			return // the last queued one places it
		}
	}
	e.vw.SetFile(file, e.todo[file].Hash, e.locs[file])
	delete(e.locs, file)
	delete(e.left, file)
}

// maybeFlush writes the records queued when there are enough, with the
// files in progress recorded as partly done.
func (e *embedRun) maybeFlush() error {
	before := e.vw.Pending()
	if !e.vw.FlushDue() {
		return nil
	}
	if before > 0 {
		e.recordPartial()
	}
	return e.vw.Flush()
}

// recordPartial records the files in progress with the passages placed so
// far (and "" as their version: they are redone, from the cache, next
// time).
func (e *embedRun) recordPartial() {
	for f, locs := range e.locs {
		placed := make([]vector.Loc, 0, len(locs))
		for _, l := range locs {
			if l.Part >= 0 {
				placed = append(placed, l)
			}
		}
		if len(placed) > 0 {
			e.vw.SetFile(f, "", placed)
		}
	}
}

func (e *embedRun) progress() {
	if e.prog == nil || e.prog.opts.Progress == nil {
		return
	}
	el := time.Since(e.started)
	rate := 0.0
	if el > 0 {
		rate = float64(e.rep.Embedded) / el.Seconds()
	}
	e.prog.opts.Progress(Progress{Phase: PhaseEmbedding, FilesDone: len(e.todo) - len(e.left), FilesTotal: len(e.todo),
		EmbedDone: e.done, EmbedTotal: e.total, Embedded: e.rep.Embedded, Elapsed: el, Rate: rate})
}

// visitPassages calls fn with every live passage of the files: in each
// segment, the passages the file field's postings name, read as a search
// reads them (stored.go: pread, not the index's memory map, so a large
// corpus's stored text does not fill the process's resident memory).
func (w *Writer) visitPassages(files map[string]*fileEntry, fn func(file, id, title, text string) error) error {
	snap, err := w.snapshot()
	if err != nil {
		return err
	}
	var sf storedFiles
	defer sf.close()
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, s := range snap.Segments() {
		dict, err := s.Segment().Dictionary(fieldFile)
		if err != nil {
			return err
		}
		for _, file := range names {
			pl, err := dict.PostingsList([]byte(file), s.Deleted(), nil)
			if err != nil {
				return err
			}
			it := pl.Iterator(false, false, false, nil)
			for {
				p, err := it.Next()
				if err != nil {
					return err
				}
				if p == nil {
					break
				}
				d, err := sf.passage(s, p.Number())
				if err != nil {
					return err
				}
				if err := fn(file, d.ID, d.Title, d.Text); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
