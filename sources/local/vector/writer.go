package vector

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Loc is where a record lives: a part and a slot in it.
type Loc struct{ Part, Slot int }

// WriterOptions tune a Writer; zero values take the defaults.
type WriterOptions struct {
	// Reembed starts a new generation: nothing embedded before is reused,
	// and the vectors in use stay in use until the new ones are complete.
	Reembed bool
	// A part is written when it holds FlushRecords records and FlushEvery
	// has passed since the last one (so that a killed run loses little),
	// and always at MaxPartRecords.
	FlushRecords   int
	FlushEvery     time.Duration
	MaxPartRecords int
	// MaxParts is how many parts a generation may have before its small
	// parts are merged (default 8).
	MaxParts int
}

func (o WriterOptions) resolved() WriterOptions {
	if o.FlushRecords <= 0 {
		o.FlushRecords = 64
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = time.Second
	}
	if o.MaxPartRecords <= 0 {
		o.MaxPartRecords = 32768
	}
	if o.MaxParts <= 0 {
		o.MaxParts = 8
	}
	return o
}

// MismatchError refuses to write vectors of another model (or of other
// dimensions) beside the ones in use.
type MismatchError struct {
	Have, Want Meta
}

func (e *MismatchError) Error() string {
	if e.Have.Model != e.Want.Model {
		return fmt.Sprintf("its vectors were embedded with %s, not %s", e.Have.Model, e.Want.Model)
	}
	return fmt.Sprintf("its vectors have %d dimensions, %s now gives %d", e.Have.Dims, e.Want.Model, e.Want.Dims)
}

// Writer changes the vectors of a corpus: one embedding run. Only one
// process writes a corpus at a time (the corpus's write lock).
type Writer struct {
	dir, gdir, name string
	opts            WriterOptions
	m               manifest
	files           map[string]FileState
	promote         bool // make this generation current when complete
	written         bool // a manifest of this generation is on disk

	pending   []record
	lastFlush time.Time
	cache     map[Hash]Loc
	open      map[int]*part
	filesSeq  int
	dirty     bool
}

// OpenWriter opens the vectors under dir (a corpus's vectors folder) for
// an embedding run with model meta (Dims may be 0: learned from the first
// vector). Vectors of another model are refused (*MismatchError) unless
// opts.Reembed.
func OpenWriter(dir string, meta Meta, opts WriterOptions) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, opts: opts.resolved(), open: map[int]*part{}, files: map[string]FileState{}, lastFlush: time.Now()}
	cur, err := current(dir)
	if err != nil {
		return nil, err
	}
	if cur != "" && !opts.Reembed {
		m, err := readManifest(filepath.Join(dir, cur))
		if err != nil {
			return nil, err
		}
		if m.Meta.Model != meta.Model || meta.Dims > 0 && m.Meta.Dims != meta.Dims {
			return nil, &MismatchError{Have: m.Meta, Want: meta}
		}
		return w, w.load(cur, m)
	}
	// A re-embedding cut short is resumed: its vectors are the same
	// model's. So is a first embedding killed after its first manifest
	// but before CURRENT named it.
	if name, m, ok := pendingGeneration(dir, cur, meta); ok && (opts.Reembed || cur == "") {
		w.promote = true
		return w, w.load(name, m)
	}
	name, err := newGenerationName(dir)
	if err != nil {
		return nil, err
	}
	w.name, w.gdir, w.promote = name, filepath.Join(dir, name), true
	w.m = manifest{Version: manifestVersion, Meta: meta, NextPart: 1}
	w.m.Meta.Normalised = true
	return w, os.MkdirAll(w.gdir, 0o755)
}

// load continues generation name with manifest m.
func (w *Writer) load(name string, m manifest) error {
	w.name, w.gdir, w.m, w.written = name, filepath.Join(w.dir, name), m, true
	files, err := readFiles(w.gdir, m.Files)
	if err != nil {
		return err
	}
	w.files = files
	w.filesSeq = filesSeq(m.Files)
	w.cleanStale()
	return nil
}

// Meta is the generation's meta (Dims known after the first vector).
func (w *Writer) Meta() Meta { return w.m.Meta }

// Files returns the file table: which files have vectors, of which
// version.
func (w *Writer) Files() map[string]FileState { return w.files }

// pendingGeneration finds the newest generation other than cur with a
// manifest of meta's model: a re-embedding that was cut short.
func pendingGeneration(dir, cur string, meta Meta) (string, manifest, bool) {
	names, _ := generationNames(dir)
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == cur {
			continue
		}
		m, err := readManifest(filepath.Join(dir, names[i]))
		if err == nil && m.Meta.Model == meta.Model && (meta.Dims == 0 || meta.Dims == m.Meta.Dims) {
			return names[i], m, true
		}
	}
	return "", manifest{}, false
}

func generationNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "g-") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func newGenerationName(dir string) (string, error) {
	names, err := generationNames(dir)
	if err != nil {
		return "", err
	}
	n := 1
	if len(names) > 0 {
		last, _ := strconv.Atoi(strings.TrimPrefix(names[len(names)-1], "g-"))
		n = last + 1
	}
	return fmt.Sprintf("g-%04d", n), nil
}

// cleanStale removes what a killed run left that no manifest names:
// temporary files, parts written after the last manifest.
func (w *Writer) cleanStale() {
	known := map[string]bool{manifestFile: true, w.m.Files: true}
	for _, p := range w.m.Parts {
		known[filepath.Base(partPath(w.gdir, p.ID))] = true
	}
	entries, _ := os.ReadDir(w.gdir)
	for _, e := range entries {
		if !known[e.Name()] {
			os.Remove(filepath.Join(w.gdir, e.Name()))
		}
	}
}

// Lookup returns the record of a text embedded before with this
// generation's model, if any.
func (w *Writer) Lookup(h Hash) (Loc, bool, error) {
	if w.cache == nil {
		if err := w.buildCache(); err != nil {
			return Loc{}, false, err
		}
	}
	l, ok := w.cache[h]
	return l, ok, nil
}

// buildCache reads the text hash of every record of every part.
func (w *Writer) buildCache() error {
	w.cache = make(map[Hash]Loc)
	for _, p := range w.m.Parts {
		pt, err := w.part(p.ID)
		if err != nil {
			return err
		}
		hs, err := pt.hashes()
		if err != nil {
			return fmt.Errorf("reading part %d: %w", p.ID, err)
		}
		for i, h := range hs {
			w.cache[h] = Loc{Part: p.ID, Slot: i}
		}
	}
	for i, r := range w.pending {
		w.cache[r.hash] = Loc{Part: w.m.NextPart, Slot: i}
	}
	return nil
}

func (w *Writer) part(id int) (*part, error) {
	if p := w.open[id]; p != nil {
		return p, nil
	}
	p, err := openPart(w.gdir, id)
	if err != nil {
		return nil, err
	}
	w.open[id] = p
	return p, nil
}

// Reuse returns a record for passage id whose text was embedded before at
// l: l itself when it is that passage's, else a new record with a copy of
// its vector.
func (w *Writer) Reuse(l Loc, h Hash, id string) (Loc, error) {
	if l.Part == w.m.NextPart {
		r := w.pending[l.Slot]
		if r.id == id {
			return l, nil
		}
		return w.Add(h, id, r.vec)
	}
	p, err := w.part(l.Part)
	if err != nil {
		return Loc{}, err
	}
	have, err := p.passageID(l.Slot)
	if err != nil {
		return Loc{}, err
	}
	if have == id {
		return l, nil
	}
	v := make([]float32, p.h.dims)
	if err := p.readVector(l.Slot, v, make([]byte, 4*len(v))); err != nil {
		return Loc{}, err
	}
	return w.Add(h, id, v)
}

// Add queues the vector of passage id (text hash h) and returns where it
// will be.
func (w *Writer) Add(h Hash, id string, vec []float32) (Loc, error) {
	if w.m.Meta.Dims == 0 {
		w.m.Meta.Dims = len(vec)
	}
	if len(vec) != w.m.Meta.Dims {
		return Loc{}, &MismatchError{Have: w.m.Meta, Want: Meta{Model: w.m.Meta.Model, Dims: len(vec)}}
	}
	l := Loc{Part: w.m.NextPart, Slot: len(w.pending)}
	w.pending = append(w.pending, record{hash: h, id: id, vec: vec})
	if w.cache != nil {
		w.cache[h] = l
	}
	return l, nil
}

// SetFile records the records of a file's passages, in order. hash is the
// file version they embed, "" while the file is only partly done.
func (w *Writer) SetFile(path, hash string, locs []Loc) {
	var runs []Run
	for _, l := range locs {
		if n := len(runs); n > 0 && runs[n-1].Part == l.Part && runs[n-1].Start+runs[n-1].N == l.Slot {
			runs[n-1].N++
			continue
		}
		runs = append(runs, Run{Part: l.Part, Start: l.Slot, N: 1})
	}
	w.files[path] = FileState{Hash: hash, Runs: runs}
	w.dirty = true
}

// RemoveFile forgets a file's vectors (its records stay as a cache until
// the generation is compacted).
func (w *Writer) RemoveFile(path string) {
	if _, ok := w.files[path]; ok {
		delete(w.files, path)
		w.dirty = true
	}
}

// Pending is the number of records not yet written.
func (w *Writer) Pending() int { return len(w.pending) }

// FlushDue reports whether enough records are queued for a part: at
// least FlushRecords and FlushEvery since the last one, or MaxPartRecords.
func (w *Writer) FlushDue() bool {
	n := len(w.pending)
	return n >= w.opts.MaxPartRecords || n >= w.opts.FlushRecords && time.Since(w.lastFlush) >= w.opts.FlushEvery
}

// Flush writes the queued records as a part, then the file table and the
// manifest: from then on a search sees them.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 && !w.dirty {
		return nil
	}
	if len(w.pending) > 0 {
		if w.m.Mean == nil {
			w.m.Mean, w.m.MeanOf, w.m.MeanEpoch = meanOf(w.pending, w.m.Meta.Dims), len(w.pending), 1
		}
		id := w.m.NextPart
		if err := writePart(partPath(w.gdir, id), w.m.Meta.Dims, w.m.MeanEpoch, w.m.Mean, w.pending); err != nil {
			return fmt.Errorf("writing vectors: %w", err)
		}
		w.m.Parts = append(w.m.Parts, partInfo{ID: id, Count: len(w.pending)})
		w.m.NextPart++
		w.pending = nil
	}
	w.lastFlush = time.Now()
	return w.commit(false)
}

// commit writes the file table and the manifest (and CURRENT when this
// generation becomes the one in use).
func (w *Writer) commit(complete bool) error {
	if w.m.Mean == nil {
		// Nothing was ever embedded into this generation.
		return nil
	}
	w.filesSeq++
	name := fmt.Sprintf("files-%06d.json", w.filesSeq)
	if err := writeJSONFile(filepath.Join(w.gdir, name), w.files); err != nil {
		return fmt.Errorf("writing vectors: %w", err)
	}
	old := w.m.Files
	w.m.Files, w.m.Live, w.m.Updated, w.m.Complete = name, liveRuns(w.files), time.Now().UTC(), complete
	if err := writeJSONFile(filepath.Join(w.gdir, manifestFile), w.m); err != nil {
		return fmt.Errorf("writing vectors: %w", err)
	}
	w.written, w.dirty = true, false
	if old != "" {
		os.Remove(filepath.Join(w.gdir, old))
	}
	// A first generation is searched as soon as it has vectors; a new
	// one replaces the one in use only when complete.
	if cur, _ := current(w.dir); cur == "" || complete && w.promote && cur != w.name {
		if err := setCurrent(w.dir, w.name); err != nil {
			return fmt.Errorf("writing vectors: %w", err)
		}
		if cur == "" && !complete {
			w.promote = false
		}
	}
	return nil
}

// Finish ends a complete run: what is queued is written, the parts are
// compacted when they are many or hold many records no file uses, and the
// generation becomes the one in use (older ones are deleted).
func (w *Writer) Finish() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.m.Mean == nil {
		return nil
	}
	if err := w.compact(); err != nil {
		return err
	}
	if err := w.commit(true); err != nil {
		return err
	}
	w.removeOthers()
	return nil
}

// Close releases the parts opened (what is queued and not flushed is
// dropped: Flush or Finish first).
func (w *Writer) Close() error {
	var errs []error
	for id, p := range w.open {
		errs = append(errs, p.close())
		delete(w.open, id)
	}
	return errors.Join(errs...)
}

// removeOthers deletes every generation but this one, and the parts this
// one no longer names.
func (w *Writer) removeOthers() {
	names, _ := generationNames(w.dir)
	for _, n := range names {
		if n != w.name {
			os.RemoveAll(filepath.Join(w.dir, n))
		}
	}
	w.cleanStale()
}

// meanOf is the mean of the records' vectors.
func meanOf(recs []record, dims int) []float32 {
	sum := make([]float64, dims)
	for _, r := range recs {
		for i, x := range r.vec {
			sum[i] += float64(x)
		}
	}
	mean := make([]float32, dims)
	for i, s := range sum {
		mean[i] = float32(s / float64(len(recs)))
	}
	return mean
}
