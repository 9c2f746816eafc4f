package local

// The score accumulator of the search before issue 12 (was bm25.Accumulator),
// kept with that search (export_legacy_test.go) for the benchmarks and the
// equivalence tests that compare it with the current one.

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"sync"
	"testing"

	"github.com/prefrag/prefrag/sources/local/bm25"
)

// accumulatorLegacy sums term contributions per document. Small collections use a
// dense array indexed by document number (fast, pooled); large ones a map.
type accumulatorLegacy struct {
	p     bm25.Params
	avgdl float64
	// dense mode
	dense   []float64
	touched []uint64
	// sparse mode
	scores map[uint64]float64
}

// maxDenseLegacy is the largest document-number range scored with a dense array.
const maxDenseLegacy = 1 << 22

// densePoolLegacy holds dense score arrays (as pointers: a slice put in a Pool
// would be copied to the heap each time).
var densePoolLegacy = sync.Pool{New: func() any { return new([]float64) }}

// newAccumulatorLegacy starts scoring for one query over collection c. maxDoc
// bounds the document numbers the caller will add (0 when unknown).
func newAccumulatorLegacy(p bm25.Params, c bm25.Collection, maxDoc uint64) *accumulatorLegacy {
	a := &accumulatorLegacy{p: p, avgdl: c.AvgLength()}
	if maxDoc > 0 && maxDoc <= maxDenseLegacy {
		d := *densePoolLegacy.Get().(*[]float64)
		if uint64(cap(d)) < maxDoc {
			d = make([]float64, maxDoc)
		}
		a.dense = d[:maxDoc]
		return a
	}
	a.scores = make(map[uint64]float64)
	return a
}

// Release returns pooled memory; the accumulator must not be used after.
func (a *accumulatorLegacy) Release() {
	if a.dense == nil {
		return
	}
	for _, d := range a.touched {
		a.dense[d] = 0
	}
	d := a.dense[:0]
	densePoolLegacy.Put(&d)
	a.dense, a.touched = nil, nil
}

func (a *accumulatorLegacy) add(doc uint64, v float64) {
	if a.dense != nil && doc < uint64(len(a.dense)) {
		if a.dense[doc] == 0 {
			a.touched = append(a.touched, doc)
		}
		a.dense[doc] += v
		return
	}
	if a.scores == nil {
		a.scores = make(map[uint64]float64)
	}
	a.scores[doc] += v
}

// AddWithAvg adds the contribution of one posting: doc holds a term tf
// times and is dl tokens long in a field of mean length avgdl; weight is
// the term's query weight times its idf.
func (a *accumulatorLegacy) AddWithAvg(doc, tf, dl uint64, weight, avgdl float64) {
	a.add(doc, weight*a.p.TermScore(tf, dl, avgdl))
}

// Len is the number of documents with a non-zero score.
func (a *accumulatorLegacy) Len() int { return len(a.touched) + len(a.scores) }

// each calls f for every scored document.
func (a *accumulatorLegacy) each(f func(doc uint64, s float64)) {
	for _, d := range a.touched {
		f(d, a.dense[d])
	}
	for d, s := range a.scores {
		f(d, s)
	}
}

// hitLegacy is one ranked document.
type hitLegacy struct {
	Doc   uint64
	ID    string
	Score float64
}

// Top returns the k best documents, best first; equal scores are ordered by
// id (ascending), which idOf resolves from the caller's document numbers.
// Only the documents that reach the k-th score have their id resolved.
func (a *accumulatorLegacy) Top(k int, idOf func(doc uint64) (string, error)) ([]hitLegacy, error) {
	if k <= 0 || a.Len() == 0 {
		return nil, nil
	}
	threshold := math.Inf(-1)
	if a.Len() > k {
		h := make(minHeapLegacy, 0, k)
		a.each(func(_ uint64, s float64) {
			if len(h) < k {
				heap.Push(&h, s)
			} else if s > h[0] {
				h[0] = s
				heap.Fix(&h, 0)
			}
		})
		threshold = h[0]
	}
	hits := make([]hitLegacy, 0, k)
	a.each(func(doc uint64, s float64) {
		if s >= threshold {
			hits = append(hits, hitLegacy{Doc: doc, Score: s})
		}
	})
	for i := range hits {
		id, err := idOf(hits[i].Doc)
		if err != nil {
			return nil, err
		}
		hits[i].ID = id
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

type minHeapLegacy []float64

func (h minHeapLegacy) Len() int           { return len(h) }
func (h minHeapLegacy) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeapLegacy) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeapLegacy) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minHeapLegacy) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Score is the sum accumulated for doc so far.
func (a *accumulatorLegacy) Score(doc uint64) float64 {
	if a.dense != nil && doc < uint64(len(a.dense)) {
		return a.dense[doc]
	}
	return a.scores[doc]
}

// Docs returns the scored documents in ascending order.
func (a *accumulatorLegacy) Docs() []uint64 {
	docs := make([]uint64, 0, a.Len())
	a.each(func(d uint64, _ float64) { docs = append(docs, d) })
	sort.Slice(docs, func(i, j int) bool { return docs[i] < docs[j] })
	return docs
}

// Kth returns the k-th largest accumulated score, and false when fewer than
// k documents are scored. As every later contribution is positive, it is a
// lower bound of the final k-th score: a document that cannot reach it can
// be left out of the ranking.
func (a *accumulatorLegacy) Kth(k int) (float64, bool) {
	if k <= 0 || a.Len() < k {
		return 0, false
	}
	h := make(minHeapLegacy, 0, k)
	a.each(func(_ uint64, s float64) {
		if len(h) < k {
			heap.Push(&h, s)
		} else if s > h[0] {
			h[0] = s
			heap.Fix(&h, 0)
		}
	})
	return h[0], true
}

func TestAccumulatorLegacyBreaksTiesByID(t *testing.T) {
	for _, maxDoc := range []uint64{0, 10, 4} {
		t.Run(fmt.Sprint("maxDoc=", maxDoc), func(t *testing.T) { topBreaksTiesLegacy(t, maxDoc) })
	}
}

func topBreaksTiesLegacy(t *testing.T, maxDoc uint64) {
	c := bm25.Collection{N: 10, TotalLength: 100}
	acc := newAccumulatorLegacy(bm25.Default, c, maxDoc)
	defer acc.Release()
	// Eight documents with the same score, two better ones.
	for d := uint64(0); d < 8; d++ {
		acc.AddWithAvg(d, 1, 10, 1, 10)
	}
	acc.AddWithAvg(8, 3, 10, 1, 10)
	acc.AddWithAvg(9, 2, 10, 1, 10)
	idOf := func(d uint64) (string, error) { return fmt.Sprintf("id%d", 7-d%8+10*(d/8)), nil }
	hits, err := acc.Top(5, idOf)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(func() []string {
		var s []string
		for _, h := range hits {
			s = append(s, h.ID)
		}
		return s
	}())
	// d8 -> id17, d9 -> id16; tied d0..d7 -> id7..id0, ascending: id0 id1 id2.
	if want := "[id17 id16 id0 id1 id2]"; got != want {
		t.Errorf("Top = %s, want %s", got, want)
	}
	if hits, _ := acc.Top(0, idOf); hits != nil {
		t.Errorf("Top(0) = %v", hits)
	}
	if hits, _ := newAccumulatorLegacy(bm25.Default, c, 16).Top(3, idOf); hits != nil {
		t.Errorf("empty Top = %v", hits)
	}
}
