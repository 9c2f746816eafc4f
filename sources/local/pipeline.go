package local

import (
	"runtime"
	"strings"

	index "github.com/blevesearch/bleve_index_api"
)

// The writer's pipeline: passages are analysed by worker goroutines (one
// per processor) while the ingest goes on reading and splitting files, and
// a full batch is made durable by Bleve in the background while the next
// one is built. Everything the writer decides (ids, manifest entries,
// counters) stays in the ingest goroutine; workers only analyse, and the
// background write only calls Bleve.

// job is one passage queued for a batch.
type job struct {
	p     passage
	entry *fileEntry // the manifest entry its tokens count on
	size  int
	b     built // set by a worker
	// panicked is what analysis panicked with, re-raised by collect in the
	// ingest goroutine.
	panicked any
}

// analyse queues p for analysis by the workers and returns its job.
func (w *Writer) analyse(p passage, e *fileEntry) *job {
	if w.work == nil {
		w.startWorkers()
	}
	// A title is one line (see build); the size is known before analysis.
	p.Title = strings.Join(strings.Fields(p.Title), " ")
	size := len(p.Text) + len(p.Text) + len(p.Loc) + len(p.URL) + len(p.File) + len(p.ID)
	if p.Title != "" {
		size += len(p.Title) + 1
	}
	j := &job{p: p, entry: e, size: size}
	w.pending = append(w.pending, j)
	w.analysing.Add(1)
	w.work <- j
	return j
}

func (w *Writer) startWorkers() {
	w.work = make(chan *job, 512)
	for range max(runtime.GOMAXPROCS(0), 1) {
		// Each worker has its own analyser: its stem cache is its own.
		an := analyzers{en: withStemCache(w.an.en), keyword: w.an.keyword}
		go func(work <-chan *job) {
			for j := range work {
				w.analyseOne(an, j)
			}
		}(w.work)
	}
}

func (w *Writer) analyseOne(an analyzers, j *job) {
	defer w.analysing.Done()
	defer func() {
		if r := recover(); r != nil {
			j.panicked = r
		}
	}()
	j.b = an.build(j.p)
}

func (w *Writer) stopWorkers() {
	if w.work != nil {
		close(w.work)
		w.work = nil
	}
}

// collect waits for the queued passages to be analysed and adds their
// token counts to their manifest entries and to the corpus counters.
func (w *Writer) collect() {
	w.analysing.Wait()
	for ; w.counted < len(w.pending); w.counted++ {
		j := w.pending[w.counted]
		if j.panicked != nil {
			panic(j.panicked)
		}
		j.entry.BodyTokens += j.b.bodyTokens
		j.entry.TitleTokens += j.b.titleTokens
		w.stats.BodyTokens += j.b.bodyTokens
		w.stats.TitleTokens += j.b.titleTokens
	}
}

// inflight is a batch being made durable, with what it changes so that
// lookups made meanwhile see it (the writer's reader predates it).
type inflight struct {
	// finished is closed when the batch is durable or failed (err).
	finished    chan struct{}
	err         error
	passages    int
	pendingIDs  map[string]string
	deletes     map[string]struct{}
	entries     map[string]*fileEntry
	dropEntries map[string]struct{}
}

// maxInflight is how many batches may be on their way to disk at once: one
// being written while the segment of the next is built.
const maxInflight = 2

// write starts making batch durable in the background: the segment of its
// passages (docs) is built at once, on a core of its own (see prebuild),
// and the batch is written after the batches before it. It takes the
// writer's pending id, delete and drop maps, which resetPending replaces.
func (w *Writer) write(batch *index.Batch, docs []*batchDoc, passages int, entries map[string]*fileEntry) *inflight {
	f := &inflight{
		finished: make(chan struct{}), passages: passages,
		pendingIDs: w.pendingIDs, deletes: w.deletes, entries: entries, dropEntries: w.dropEntries,
	}
	var pre *prebuilt
	if len(docs) > 0 {
		pre = prebuild(docs)
	}
	var prev *inflight
	if n := len(w.inflight); n > 0 {
		prev = w.inflight[n-1]
	}
	w.inflight = append(w.inflight, f)
	go func() {
		defer close(f.finished)
		if prev != nil {
			<-prev.finished
			if prev.err != nil {
				// Nothing is written after a batch that failed.
				f.err = prev.err
			}
		}
		if pre != nil {
			// Bleve's Batch visits the documents again: not while the
			// segment is being built from them.
			<-pre.done
		}
		if f.err == nil {
			f.err = w.batch(batch)
		}
		if pre != nil {
			pre.discard()
		}
	}()
	return f
}

// settle waits for every batch in flight and moves the writer's reader
// past them. A failed batch fails the writer.
func (w *Writer) settle() error {
	for len(w.inflight) > 0 {
		if err := w.settleOldest(); err != nil {
			return err
		}
	}
	return nil
}

// settleOldest waits for the oldest batch in flight and moves the writer's
// reader past it.
func (w *Writer) settleOldest() error {
	f := w.inflight[0]
	w.inflight[0] = nil
	w.inflight = w.inflight[1:]
	<-f.finished
	if f.err != nil {
		w.failed = f.err
		// The batches after it fail with it.
		for _, g := range w.inflight {
			<-g.finished
		}
		w.inflight = nil
		return f.err
	}
	w.flushed += int64(f.passages)
	if w.reader != nil {
		if err := w.reader.Close(); err != nil {
			return err
		}
	}
	w.reader = nil
	r, err := w.adv.Reader()
	if err != nil {
		return err
	}
	w.reader = r
	return nil
}

// sync flushes what is queued and waits until it is durable.
func (w *Writer) sync() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.settle()
}
