package vector

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// maxCompactRecords bounds the records of a part written by a compaction.
const maxCompactRecords = 1 << 20

// readFiles reads a generation's file table.
func readFiles(gdir, name string) (map[string]FileState, error) {
	files := map[string]FileState{}
	if name == "" {
		return files, nil
	}
	b, err := os.ReadFile(filepath.Join(gdir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &DamagedError{Reason: "its file table " + name + " is missing"}
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &files); err != nil {
		return nil, &DamagedError{Reason: "its file table is not valid JSON"}
	}
	return files, nil
}

func filesSeq(name string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "files-"), ".json"))
	return n
}

// compact rewrites parts. All of them, centred on a new mean, when many
// of their records are no file's any more (a quarter) or the generation has
// grown to twice the vectors its mean was computed from; else, when there
// are more than MaxParts parts, every part but the largest into one.
func (w *Writer) compact() error {
	total, largest := 0, 0
	for i, p := range w.m.Parts {
		total += p.Count
		if p.Count > w.m.Parts[largest].Count {
			largest = i
		}
	}
	live := 0
	for _, r := range liveRuns(w.files) {
		live += r.N
	}
	full := (total-live)*4 > total || live >= 2*w.m.MeanOf
	if !full && len(w.m.Parts) <= w.opts.MaxParts {
		return nil
	}
	chosen := map[int]bool{}
	for i, p := range w.m.Parts {
		if full || i != largest {
			chosen[p.ID] = true
		}
	}
	if full {
		mean, n, err := w.liveMean()
		if err != nil {
			return err
		}
		if n > 0 {
			w.m.Mean, w.m.MeanOf, w.m.MeanEpoch = mean, n, w.m.MeanEpoch+1
		}
	}
	return w.rewrite(chosen)
}

// liveMean is the mean of every vector a file uses.
func (w *Writer) liveMean() ([]float32, int, error) {
	dims := w.m.Meta.Dims
	sum := make([]float64, dims)
	n := 0
	buf := make([]float32, 4096*dims)
	for _, r := range liveRuns(w.files) {
		p, err := w.part(r.Part)
		if err != nil {
			return nil, 0, err
		}
		for lo := r.Start; lo < r.Start+r.N; lo += 4096 {
			k := min(4096, r.Start+r.N-lo)
			if err := p.readVectors(lo, k, buf); err != nil {
				return nil, 0, err
			}
			for i, x := range buf[:k*dims] {
				sum[i%dims] += float64(x)
			}
			n += k
		}
	}
	mean := make([]float32, dims)
	if n > 0 {
		for i, s := range sum {
			mean[i] = float32(s / float64(n))
		}
	}
	return mean, n, nil
}

// rewrite copies the records files use in the chosen parts into new
// parts, file after file, and points the files at them.
func (w *Writer) rewrite(chosen map[int]bool) error {
	paths := make([]string, 0, len(w.files))
	count := 0
	for path, f := range w.files {
		paths = append(paths, path)
		for _, r := range f.Runs {
			if chosen[r.Part] {
				count += r.N
			}
		}
	}
	sort.Strings(paths)
	c := &copier{w: w, left: count}
	for _, path := range paths {
		f := w.files[path]
		var runs []Run
		for _, r := range f.Runs {
			if !chosen[r.Part] {
				runs = append(runs, r)
				continue
			}
			moved, err := c.copyRun(r)
			if err != nil {
				c.abort()
				return err
			}
			runs = appendRuns(runs, moved...)
		}
		w.files[path] = FileState{Hash: f.Hash, Runs: runs}
	}
	if err := c.finish(); err != nil {
		return err
	}
	kept := w.m.Parts[:0]
	for _, p := range w.m.Parts {
		if !chosen[p.ID] {
			kept = append(kept, p)
		}
	}
	w.m.Parts = append(kept, c.written...)
	for id := range chosen {
		if p := w.open[id]; p != nil {
			p.close()
			delete(w.open, id)
		}
	}
	w.cache = nil
	w.dirty = true
	return nil
}

func appendRuns(runs []Run, more ...Run) []Run {
	for _, r := range more {
		if n := len(runs); n > 0 && runs[n-1].Part == r.Part && runs[n-1].Start+runs[n-1].N == r.Start {
			runs[n-1].N += r.N
			continue
		}
		runs = append(runs, r)
	}
	return runs
}

// copier writes the records of a compaction into new parts.
type copier struct {
	w       *Writer
	left    int
	pw      *partWriter
	id      int
	slot    int
	written []partInfo
}

func (c *copier) copyRun(r Run) ([]Run, error) {
	p, err := c.w.part(r.Part)
	if err != nil {
		return nil, err
	}
	hashes, err := p.hashes()
	if err != nil {
		return nil, err
	}
	dims := c.w.m.Meta.Dims
	var out []Run
	for lo := r.Start; lo < r.Start+r.N; {
		if c.pw == nil || c.slot == int(c.pw.h.count) {
			if err := c.next(); err != nil {
				return nil, err
			}
		}
		k := min(4096, r.Start+r.N-lo, int(c.pw.h.count)-c.slot)
		vecs := make([]float32, k*dims)
		if err := p.readVectors(lo, k, vecs); err != nil {
			return nil, err
		}
		ids, err := p.passageIDs(lo, k)
		if err != nil {
			return nil, err
		}
		recs := make([]record, k)
		for i := range recs {
			recs[i] = record{hash: hashes[lo+i], id: ids[i], vec: vecs[i*dims : (i+1)*dims]}
		}
		if err := c.pw.add(recs); err != nil {
			return nil, err
		}
		out = appendRuns(out, Run{Part: c.id, Start: c.slot, N: k})
		c.slot += k
		c.left -= k
		lo += k
	}
	return out, nil
}

// next commits the part being written and starts the next one.
func (c *copier) next() error {
	if err := c.commit(); err != nil {
		return err
	}
	n := min(c.left, maxCompactRecords)
	c.id = c.w.m.NextPart
	c.w.m.NextPart++
	pw, err := newPartWriter(partPath(c.w.gdir, c.id), c.w.m.Meta.Dims, n, c.w.m.MeanEpoch, c.w.m.Mean)
	if err != nil {
		return err
	}
	c.pw, c.slot = pw, 0
	return nil
}

func (c *copier) commit() error {
	if c.pw == nil {
		return nil
	}
	pw := c.pw
	c.pw = nil
	if err := pw.commit(); err != nil {
		return fmt.Errorf("compacting vectors: %w", err)
	}
	c.written = append(c.written, partInfo{ID: c.id, Count: int(pw.h.count)})
	return nil
}

func (c *copier) finish() error { return c.commit() }

func (c *copier) abort() {
	if c.pw != nil {
		c.pw.abort()
	}
}

// passageIDs reads the ids of records [start, start+n).
func (p *part) passageIDs(start, n int) ([]string, error) {
	idx := make([]byte, (n+1)*4)
	if _, err := p.f.ReadAt(idx, int64(p.h.idIndex)+int64(start)*4); err != nil {
		return nil, err
	}
	lo := binary.LittleEndian.Uint32(idx)
	hi := binary.LittleEndian.Uint32(idx[n*4:])
	if hi < lo || p.h.idBlob+uint64(hi) > p.h.size {
		return nil, fmt.Errorf("part %d: damaged ids", p.id)
	}
	blob := make([]byte, hi-lo)
	if _, err := p.f.ReadAt(blob, int64(p.h.idBlob)+int64(lo)); err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		a := binary.LittleEndian.Uint32(idx[i*4:]) - lo
		b := binary.LittleEndian.Uint32(idx[(i+1)*4:]) - lo
		if b < a || int(b) > len(blob) {
			return nil, fmt.Errorf("part %d: damaged ids", p.id)
		}
		out[i] = string(blob[a:b])
	}
	return out, nil
}
