package vector

import (
	"errors"
	"fmt"
	"math/bits"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
)

// Index is a corpus's vectors opened for searching: the sign codes of
// every vector a file uses, in memory (dims/8 bytes each), and the part
// files, from which the full vectors of a query's candidates are read.
// It is immutable and safe for concurrent use.
type Index struct {
	meta  Meta
	mean  []float32
	words int
	// codes holds the codes of the live records, run after run.
	codes []uint64
	runs  []liveRun
	parts map[int]*part
	n     int
	// dists are reused distance buffers (n each), one per search at once.
	dists sync.Pool
}

// liveRun is a run of live records and the position of its first one in
// codes (counted in records).
type liveRun struct {
	Run
	base int
	p    *part
}

// Open opens the vectors in use under dir (a corpus's vectors folder). It
// returns ErrNone when there are none.
func Open(dir string) (*Index, error) {
	m, gdir, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	ix := &Index{meta: m.Meta, mean: m.Mean, words: int(codeWords(m.Meta.Dims)), parts: map[int]*part{}}
	known := map[int]bool{}
	total := 0
	for _, p := range m.Parts {
		known[p.ID] = true
		total += max(p.Count, 0)
	}
	live := 0
	for _, r := range m.Live {
		live += max(r.N, 0)
	}
	if live > total {
		return nil, &DamagedError{Reason: fmt.Sprintf("its manifest uses %d vectors of %d", live, total)}
	}
	// The codes are held once, at their exact size.
	ix.codes = make([]uint64, 0, live*ix.words)
	for _, r := range m.Live {
		if !known[r.Part] {
			ix.Close()
			return nil, &DamagedError{Reason: fmt.Sprintf("its manifest uses part %d, which it does not list", r.Part)}
		}
		if err := ix.load(gdir, r, m.MeanEpoch); err != nil {
			ix.Close()
			return nil, err
		}
	}
	return ix, nil
}

// load reads the codes of one live run.
func (ix *Index) load(gdir string, r Run, epoch int) error {
	p := ix.parts[r.Part]
	if p == nil {
		var err error
		if p, err = openPart(gdir, r.Part); err != nil {
			return &DamagedError{Reason: err.Error()}
		}
		ix.parts[r.Part] = p
		if int(p.h.dims) != ix.meta.Dims || int(p.h.epoch) != epoch {
			return &DamagedError{Reason: fmt.Sprintf("part %d does not match its manifest", r.Part)}
		}
	}
	if r.Start < 0 || r.N <= 0 || r.Start+r.N > int(p.h.count) {
		return &DamagedError{Reason: fmt.Sprintf("a run of part %d is outside it", r.Part)}
	}
	var err error
	if ix.codes, err = p.readCodes(ix.codes, r.Start, r.N); err != nil {
		return &DamagedError{Reason: fmt.Sprintf("part %d: %v", r.Part, err)}
	}
	ix.runs = append(ix.runs, liveRun{Run: r, base: ix.n, p: p})
	ix.n += r.N
	return nil
}

// Meta says which model made the vectors.
func (ix *Index) Meta() Meta { return ix.meta }

// Len is the number of vectors searched.
func (ix *Index) Len() int { return ix.n }

// MemoryBytes is the memory the codes take.
func (ix *Index) MemoryBytes() int64 { return int64(len(ix.codes)) * 8 }

// Close releases the part files.
func (ix *Index) Close() error {
	var errs []error
	for id, p := range ix.parts {
		errs = append(errs, p.close())
		delete(ix.parts, id)
	}
	return errors.Join(errs...)
}

// Hit is a passage found by its vector.
type Hit struct {
	ID    string
	Score float32 // cosine similarity with the query
}

// DefaultRerank is how many candidates, by the distance of their codes to
// the query's, are rescored with their full vectors.
const DefaultRerank = 400

// Search returns the n passages whose vectors are most similar to q (a
// unit vector of the index's dimensions), best first: the rerank nearest by
// code (Hamming distance of the signs around the mean), then rescored
// exactly. rerank ≤ 0 takes DefaultRerank.
func (ix *Index) Search(q []float32, n, rerank int) ([]Hit, error) {
	if len(q) != ix.meta.Dims {
		return nil, fmt.Errorf("a query vector of %d dimensions for vectors of %d", len(q), ix.meta.Dims)
	}
	if n <= 0 || ix.n == 0 {
		return nil, nil
	}
	if rerank <= 0 {
		rerank = DefaultRerank
	}
	rerank = max(rerank, n)
	code := make([]uint64, ix.words)
	encodeCode(code, q, ix.mean)
	cands := ix.candidates(code, rerank)
	return ix.rescore(q, cands, n)
}

// candidates returns the positions of the k codes nearest to code.
func (ix *Index) candidates(code []uint64, k int) []int {
	if k >= ix.n {
		out := make([]int, ix.n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	dist, _ := ix.dists.Get().([]uint16)
	if len(dist) != ix.n {
		dist = make([]uint16, ix.n)
	}
	defer ix.dists.Put(dist)
	workers := max(1, min(runtime.GOMAXPROCS(0), ix.n/(1<<14)))
	hists := make([][]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := ix.n*w/workers, ix.n*(w+1)/workers
		hists[w] = make([]int, ix.words*64+1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			hamming(ix.codes, code, dist, lo, hi, hists[w])
		}()
	}
	wg.Wait()
	// The threshold: the smallest distance t with at least k codes at t
	// or nearer.
	t, below := 0, 0
	for ; t < len(hists[0]); t++ {
		c := 0
		for _, h := range hists {
			c += h[t]
		}
		if below+c >= k {
			break
		}
		below += c
	}
	out := make([]int, 0, k)
	ties := k - below
	for i, d := range dist {
		if int(d) < t {
			out = append(out, i)
		} else if int(d) == t && ties > 0 {
			out = append(out, i)
			ties--
		}
	}
	return out
}

// hamming writes the distance of codes [lo, hi) to code into dist, and
// counts them by distance in hist.
func hamming(codes, code []uint64, dist []uint16, lo, hi int, hist []int) {
	w := len(code)
	if w == 6 {
		q0, q1, q2, q3, q4, q5 := code[0], code[1], code[2], code[3], code[4], code[5]
		for i := lo; i < hi; i++ {
			c := codes[i*6 : i*6+6 : i*6+6]
			d := bits.OnesCount64(c[0]^q0) + bits.OnesCount64(c[1]^q1) + bits.OnesCount64(c[2]^q2) +
				bits.OnesCount64(c[3]^q3) + bits.OnesCount64(c[4]^q4) + bits.OnesCount64(c[5]^q5)
			dist[i] = uint16(d)
			hist[d]++
		}
		return
	}
	for i := lo; i < hi; i++ {
		d := 0
		c := codes[i*w : i*w+w]
		for j, x := range c {
			d += bits.OnesCount64(x ^ code[j])
		}
		dist[i] = uint16(d)
		hist[d]++
	}
}

// locate finds the part and slot of live position i.
func (ix *Index) locate(i int) (*part, int) {
	j := sort.Search(len(ix.runs), func(j int) bool { return ix.runs[j].base+ix.runs[j].N > i })
	r := ix.runs[j]
	return r.p, r.Start + i - r.base
}

// rescore reads the candidates' vectors and returns the n most similar to
// q, with their passage ids.
func (ix *Index) rescore(q []float32, cands []int, n int) ([]Hit, error) {
	type scored struct {
		p     *part
		slot  int
		score float32
	}
	dims := ix.meta.Dims
	v := make([]float32, dims)
	buf := make([]byte, 4*dims)
	all := make([]scored, 0, len(cands))
	for _, c := range cands {
		p, slot := ix.locate(c)
		if err := p.readVector(slot, v, buf); err != nil {
			return nil, fmt.Errorf("reading a vector: %w", err)
		}
		all = append(all, scored{p: p, slot: slot, score: dot(q, v)})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		if all[i].p.id != all[j].p.id {
			return all[i].p.id < all[j].p.id
		}
		return all[i].slot < all[j].slot
	})
	if len(all) > n {
		all = all[:n]
	}
	hits := make([]Hit, len(all))
	for i, s := range all {
		id, err := s.p.passageID(s.slot)
		if err != nil {
			return nil, err
		}
		hits[i] = Hit{ID: id, Score: s.score}
	}
	return hits, nil
}

func dot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Exact returns, for each query, the n most similar passages by a full
// scan of every vector (the ground truth of Search's recall).
func (ix *Index) Exact(queries [][]float32, n int) ([][]Hit, error) {
	dims := ix.meta.Dims
	type top struct {
		p     *part
		slot  int
		score float32
	}
	tops := make([][]top, len(queries))
	buf := make([]float32, 4096*dims)
	for _, r := range ix.runs {
		for lo := r.Start; lo < r.Start+r.N; lo += 4096 {
			k := min(4096, r.Start+r.N-lo)
			if err := r.p.readVectors(lo, k, buf); err != nil {
				return nil, err
			}
			var wg sync.WaitGroup
			for qi, q := range queries {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range k {
						s := dot(q, buf[i*dims:(i+1)*dims])
						t := tops[qi]
						if len(t) == n && s <= t[n-1].score {
							continue
						}
						j := sort.Search(len(t), func(j int) bool { return t[j].score < s })
						if len(t) < n {
							t = append(t, top{})
						}
						copy(t[j+1:], t[j:])
						t[j] = top{p: r.p, slot: lo + i, score: s}
						tops[qi] = t
					}
				}()
			}
			wg.Wait()
		}
	}
	out := make([][]Hit, len(queries))
	for qi, t := range tops {
		for _, x := range t {
			id, err := x.p.passageID(x.slot)
			if err != nil {
				return nil, err
			}
			out[qi] = append(out[qi], Hit{ID: id, Score: x.score})
		}
	}
	return out, nil
}

// Dir is the vectors folder of the corpus at path.
func Dir(corpusPath string) string { return filepath.Join(corpusPath, "vectors") }
