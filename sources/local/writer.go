package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Writer holds a corpus open for writing. Only one process can hold a Writer
// on a corpus at a time.
type Writer struct {
	name, path string
	opts       WriterOptions // resolved
	idx        bleve.Index
	adv        index.Index // idx's Bleve index, written to directly
	an         analyzers
	stats      collectionStats
	reader     index.IndexReader // snapshot as of the last flush

	// pending are the passages queued since the last flush, analysed by
	// the workers (see pipeline.go); counted is how many of them have
	// their token counts added to the counters.
	pending      []*job
	counted      int
	analysing    sync.WaitGroup
	work         chan *job
	pendingBytes int
	pendingIDs   map[string]string   // id -> file, added since the last flush
	deletes      map[string]struct{} // committed ids deleted since the last flush
	entries      map[string]*fileEntry
	dropEntries  map[string]struct{}
	flushed      int64 // passages made durable by this writer
	// inflight are the batches being made durable in the background while
	// the next one is built, oldest first.
	inflight []*inflight
	// fresh says the corpus had no passages when the writer opened it:
	// an id this writer never queued (written) is then not taken.
	fresh   bool
	written idFilter
	// failed is the error of a batch that could not be written; nothing
	// more is written after it.
	failed error
}

// batch writes one batch. A full disk, whether the index library reports
// it or panics on it, is a DiskFullError.
func (w *Writer) batch(b *index.Batch) (err error) {
	defer recoverWrite(w.name, w.path, &err)
	return writeFailure(w.name, w.path, w.adv.Batch(b))
}

// OpenWriter opens corpus name under dir for writing, creating it (and dir)
// when it does not exist, tuned by opts (the zero value: the defaults). It
// fails with ErrBusy when another process holds the corpus for longer than
// WriteLockTimeout.
func OpenWriter(dir, name string, opts WriterOptions) (_ *Writer, err error) {
	opts = opts.resolved()
	path, err := corpusPath(dir, name)
	if err != nil {
		return nil, err
	}
	defer recoverDamaged(name, &err)
	cfg := map[string]interface{}{
		"bolt_timeout": WriteLockTimeout.String(),
		// The segment plugin that takes segments built beforehand (see
		// prebuild.go); the format is zap v17 all the same.
		"forceSegmentType":       segmentType,
		"forceSegmentVersion":    segmentVersion,
		"scorchMergePlanOptions": backgroundMergeOptions(opts),
	}
	for k, v := range opts.IndexConfig {
		cfg[k] = v
	}
	var idx bleve.Index
	if exists(path) {
		if err := checkSegments(name, path, WriteLockTimeout, true); err != nil {
			return nil, err
		}
		idx, err = bleve.OpenUsing(path, cfg)
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			if why := readOnlyWhy(err); why != "" {
				return nil, &ReadOnlyError{Name: name, Path: dir, Why: why}
			}
			return nil, fmt.Errorf("creating corpora directory: %w", err)
		}
		idx, err = bleve.NewUsing(path, newMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, cfg)
		if errors.Is(err, bleve.ErrorIndexPathExists) {
			// Another process created it a moment ago.
			idx, err = bleve.OpenUsing(path, cfg)
		} else if err != nil {
			// Half created (a full disk): it would read as damaged.
			_ = os.RemoveAll(path)
		}
	}
	if err != nil {
		return nil, damagedOpen(name, path, err, true)
	}
	w := &Writer{name: name, path: path, opts: opts, idx: idx, an: lookupAnalyzers(idx.Mapping())}
	if err := w.load(); err != nil {
		_ = idx.Close()
		return nil, err
	}
	return w, nil
}

// backgroundMergeOptions are the writer's settings of Bleve's background
// merger (over Bleve's defaults). Bleve's defaults merge batches ten at a
// time, then those segments ten at a time, and so on: every passage is
// read and written again once per tier. Here the merger waits for the
// batches of a full segment (SettleMaxDocs passages, 50 batches of
// BatchPassages) and merges them at once, and no further: each passage is
// merged once (at a million passages the merges took 22 s of CPU instead
// of 36 s), and no merge reads more than a full segment through memory
// maps. Segments of at least half of MaxSegmentSize are left alone.
func backgroundMergeOptions(o WriterOptions) map[string]interface{} {
	o = o.resolved()
	full := max(o.SettleMaxDocs, 4000)
	batch := max(o.BatchPassages, 1)
	per := max(full/batch, 2) // batches per full segment
	return map[string]interface{}{
		// A merge takes segments under half of it, up to a sum under it.
		"MaxSegmentSize":       full + batch,
		"SegmentsPerMergeTask": per,
		// One tier of per batches before a merge.
		"MaxSegmentsPerTier": per,
		"TierGrowth":         float64(per),
		"FloorSegmentSize":   batch,
	}
}

func openError(name, path string, err error, writing bool) error {
	if isLockTimeout(err) {
		return &BusyError{Name: name, Writing: writing}
	}
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) || errors.Is(err, bleve.ErrorIndexMetaMissing) {
		return &NotFoundError{Name: name}
	}
	return fmt.Errorf("opening corpus %q at %s: %w", name, path, err)
}

func isLockTimeout(err error) bool {
	return errors.Is(err, bolterrors.ErrTimeout) || (err != nil && strings.HasSuffix(err.Error(), bolterrors.ErrTimeout.Error()))
}

func (w *Writer) load() (err error) {
	w.adv, err = w.idx.Advanced()
	if err != nil {
		return err
	}
	w.reader, err = w.adv.Reader()
	if err != nil {
		return err
	}
	n, err := w.reader.DocCount()
	if err != nil {
		return err
	}
	w.fresh = n == 0
	raw, err := w.reader.GetInternal([]byte(keyStats))
	if err != nil {
		return err
	}
	if w.stats, err = decodeStats(raw); err != nil {
		return &DamagedError{Name: w.name, Reason: "its statistics cannot be read: " + oneLineValue(err)}
	}
	if v, _ := w.reader.GetInternal([]byte(keySchema)); len(v) > 0 && string(v) != schemaVersion {
		return fmt.Errorf("corpus %q was written by another prefrag version (schema %s); delete it and index again", w.name, v)
	}
	w.resetPending()
	return nil
}

func (w *Writer) resetPending() {
	w.pending = nil
	w.counted = 0
	w.pendingBytes = 0
	w.pendingIDs = make(map[string]string)
	w.deletes = make(map[string]struct{})
	w.entries = make(map[string]*fileEntry)
	w.dropEntries = make(map[string]struct{})
}

// entry returns the manifest entry of file as this writer sees it, nil when
// the file was never indexed.
func (w *Writer) entry(file string) (*fileEntry, error) {
	if e, ok := w.entries[file]; ok {
		return e, nil
	}
	if _, ok := w.dropEntries[file]; ok {
		return nil, nil
	}
	for i := len(w.inflight) - 1; i >= 0; i-- {
		f := w.inflight[i]
		if e, ok := f.entries[file]; ok {
			return e, nil
		}
		if _, ok := f.dropEntries[file]; ok {
			return nil, nil
		}
	}
	raw, err := w.reader.GetInternal(fileKey(file))
	if err != nil {
		return nil, err
	}
	e, err := decodeEntry(raw)
	if err != nil {
		return nil, fmt.Errorf("damaged manifest entry for %s: %w", file, err)
	}
	return e, nil
}

// exists reports whether a passage id is taken, and by which file.
func (w *Writer) idTaken(id string) (string, bool, error) {
	if f, ok := w.pendingIDs[id]; ok {
		return f, true, nil
	}
	if _, ok := w.deletes[id]; ok {
		return "", false, nil
	}
	for i := len(w.inflight) - 1; i >= 0; i-- {
		f := w.inflight[i]
		if file, ok := f.pendingIDs[id]; ok {
			return file, true, nil
		}
		if _, ok := f.deletes[id]; ok {
			return "", false, nil
		}
	}
	if w.fresh && !w.written.mayHold(id) {
		return "", false, nil
	}
	iid, err := w.reader.InternalID(id)
	if err != nil || iid == nil {
		return "", false, err
	}
	doc, err := w.reader.Document(id)
	if err != nil || doc == nil {
		return "", err == nil, err
	}
	file := ""
	doc.VisitFields(func(f index.Field) {
		if f.Name() == fieldFile {
			file = string(f.Value())
		}
	})
	return file, true, nil
}

// beginFile starts (re)indexing a file: its manifest entry is reset, marked
// incomplete until finishFile.
func (w *Writer) beginFile(file string, size int64, mtime time.Time) {
	delete(w.dropEntries, file)
	w.entries[file] = &fileEntry{Size: size, ModTime: mtime.UnixNano(), Titles: titlesVersion}
}

// add queues one passage of file. newDoc says it starts a new source
// document (always for the first passage of a file; per line for .jsonl).
func (w *Writer) add(p passage, newDoc bool) error {
	e := w.entries[p.File]
	if e == nil {
		return fmt.Errorf("internal error: passage of %s added outside beginFile", p.File)
	}
	if w.failed != nil {
		return w.failed
	}
	j := w.analyse(p, e)
	w.pendingBytes += j.size
	w.pendingIDs[p.ID] = p.File
	if w.fresh {
		w.written.add(p.ID)
	}
	e.Passages++
	if newDoc {
		e.Documents++
		w.stats.Documents++
	}
	if len(w.pending) >= w.opts.BatchPassages || w.pendingBytes >= w.opts.BatchBytes {
		return w.flush()
	}
	return nil
}

// finishFile marks a file complete with its content hash.
func (w *Writer) finishFile(file, hash string) {
	if e := w.entries[file]; e != nil {
		e.Hash = hash
		e.Complete = true
	}
}

// touchFile records a new modification time for an unchanged file.
func (w *Writer) touchFile(file string, e fileEntry) {
	c := e
	w.entries[file] = &c
}

// removeFile undoes everything of file: its queued passages, its flushed
// passages, its manifest entry, and what it added to the counters. It serves
// files that disappeared, files about to be indexed again, and files whose
// ingest failed half-way.
func (w *Writer) removeFile(file string) error {
	// Token counts of queued passages are known once they are analysed.
	w.collect()
	e, err := w.entry(file)
	if err != nil {
		return err
	}
	if e != nil {
		// The entry counts everything of this file: flushed and queued.
		w.stats.Documents -= e.Documents
		w.stats.BodyTokens -= e.BodyTokens
		w.stats.TitleTokens -= e.TitleTokens
	}
	kept := w.pending[:0]
	w.pendingBytes = 0
	for _, j := range w.pending {
		if j.p.File == file {
			delete(w.pendingIDs, j.p.ID)
			continue
		}
		kept = append(kept, j)
		w.pendingBytes += j.size
	}
	for i := len(kept); i < len(w.pending); i++ {
		w.pending[i] = nil
	}
	w.pending = kept
	w.counted = len(kept)
	delete(w.entries, file)
	w.dropEntries[file] = struct{}{}
	ids, err := w.committedIDs(file)
	if err != nil {
		return err
	}
	for _, id := range ids {
		w.deletes[id] = struct{}{}
	}
	return nil
}

// committedIDs lists the ids of the flushed passages of file.
func (w *Writer) committedIDs(file string) ([]string, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	tfr, err := w.reader.TermFieldReader(context.Background(), []byte(file), fieldFile, false, false, false)
	if err != nil {
		return nil, err
	}
	defer tfr.Close()
	var ids []string
	var tfd index.TermFieldDoc
	for {
		d, err := tfr.Next(&tfd)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return ids, nil
		}
		id, err := w.reader.ExternalID(d.ID)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
}

// hasFile reports whether file has a manifest entry or stored passages:
// the term dictionary that indexedFiles reads keeps the names of deleted
// files until their segments are merged.
func (w *Writer) hasFile(file string) (bool, error) {
	e, err := w.entry(file)
	if err != nil || e != nil {
		return e != nil, err
	}
	ids, err := w.committedIDs(file)
	return len(ids) > 0, err
}

// indexedFiles lists every file with passages in the index.
func (w *Writer) indexedFiles() ([]string, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	dict, err := w.reader.FieldDict(fieldFile)
	if err != nil {
		return nil, err
	}
	defer dict.Close()
	var files []string
	for {
		e, err := dict.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			return files, nil
		}
		files = append(files, e.Term)
	}
}

// flush hands queued passages, deletions, counters and manifest entries
// to Bleve in one batch, made durable in the background while the next
// batch is built (see sync for waiting on it). Bleve writes a batch
// atomically: after a crash the corpus holds every batch made durable
// before it, with the counters and manifest entries of those batches.
func (w *Writer) flush() error { return w.flushBatch(false) }

// forceFlush is flush even when nothing is queued: the counters are
// written again.
func (w *Writer) forceFlush() error { return w.flushBatch(true) }

func (w *Writer) flushBatch(force bool) error {
	if w.failed != nil {
		return w.failed
	}
	if !force && len(w.pending) == 0 && len(w.deletes) == 0 && len(w.entries) == 0 && len(w.dropEntries) == 0 {
		return nil
	}
	w.collect()
	batch := index.NewBatch()
	for id := range w.deletes {
		batch.Delete(id)
	}
	docs := make([]*batchDoc, len(w.pending))
	for i, j := range w.pending {
		docs[i] = &batchDoc{Document: j.b.doc, size: j.size}
		batch.Update(docs[i])
	}
	for file := range w.dropEntries {
		batch.DeleteInternal(fileKey(file))
	}
	// Entries of files still in progress stay in memory: later passages
	// keep counting on them. The batch holds a copy as of now.
	inProgress := make(map[string]*fileEntry)
	written := make(map[string]*fileEntry, len(w.entries))
	for file, e := range w.entries {
		raw, err := json.Marshal(e)
		if err != nil {
			return err
		}
		batch.SetInternal(fileKey(file), raw)
		c := *e
		written[file] = &c
		if !e.Complete {
			inProgress[file] = e
		}
	}
	w.stats.Updated = time.Now().UTC()
	raw, err := json.Marshal(w.stats)
	if err != nil {
		return err
	}
	batch.SetInternal([]byte(keyStats), raw)
	batch.SetInternal([]byte(keySchema), []byte(schemaVersion))
	// At most maxInflight batches on their way: the oldest must be
	// durable before another starts.
	for len(w.inflight) >= maxInflight {
		if err := w.settleOldest(); err != nil {
			return err
		}
	}
	w.write(batch, docs, len(w.pending), written)
	w.resetPending()
	w.entries = inProgress
	return nil
}

// Close flushes what is queued and releases the corpus.
func (w *Writer) Close() (err error) {
	if w.idx == nil {
		return nil
	}
	defer recoverWrite(w.name, w.path, &err)
	err = w.sync()
	w.stopWorkers()
	if w.reader != nil {
		if cerr := w.reader.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := w.idx.Close(); err == nil {
		err = cerr
	}
	w.idx = nil
	return err
}
