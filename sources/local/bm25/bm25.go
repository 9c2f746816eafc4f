// Package bm25 scores documents with textbook Okapi BM25 (Robertson and
// Zaragoza's form):
//
//	score(d, q) = Σ_t w_t · idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))
//	idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))
//
// where w_t is the query weight of term t (how often it occurs in the query,
// times an optional field boost), |d| the document length in tokens and avgdl
// the true mean length over the collection. It knows nothing of the index:
// the caller feeds it postings. Scores are summed term by term in the order
// the caller adds terms, and ties are broken by document id, so the same
// collection always gives the same ranking, bit for bit.
package bm25

import (
	"container/heap"
	"math"
	"sort"
	"sync"
)

// Params are the BM25 free parameters.
type Params struct {
	K1 float64
	B  float64
}

// Default is k1 = 1.2, b = 0.75.
var Default = Params{K1: 1.2, B: 0.75}

// Collection holds the statistics scores depend on.
type Collection struct {
	// N is the number of documents.
	N uint64
	// TotalLength is the sum of all document lengths, in tokens.
	TotalLength uint64
}

// AvgLength is the mean document length; 1 for an empty collection.
func (c Collection) AvgLength() float64 {
	if c.N == 0 || c.TotalLength == 0 {
		return 1
	}
	return float64(c.TotalLength) / float64(c.N)
}

// IDF is ln(1 + (N − df + 0.5)/(df + 0.5)); always positive.
func IDF(n, df uint64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// TermScore is one term's contribution to one document, before its query
// weight and idf: tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)).
func (p Params) TermScore(tf, dl uint64, avgdl float64) float64 {
	t := float64(tf)
	return t * (p.K1 + 1) / (t + p.K1*(1-p.B+p.B*float64(dl)/avgdl))
}

// Accumulator sums term contributions per document. Small collections use a
// dense array indexed by document number (fast, pooled); large ones a map.
type Accumulator struct {
	p     Params
	avgdl float64
	// dense mode
	dense   []float64
	touched []uint64
	// sparse mode
	scores map[uint64]float64
}

// MaxDense is the largest document-number range scored with a dense array.
const MaxDense = 1 << 22

// densePool holds dense score arrays (as pointers: a slice put in a Pool
// would be copied to the heap each time).
var densePool = sync.Pool{New: func() any { return new([]float64) }}

// NewAccumulator starts scoring for one query over collection c. maxDoc
// bounds the document numbers the caller will add (0 when unknown).
func NewAccumulator(p Params, c Collection, maxDoc uint64) *Accumulator {
	a := &Accumulator{p: p, avgdl: c.AvgLength()}
	if maxDoc > 0 && maxDoc <= MaxDense {
		d := *densePool.Get().(*[]float64)
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
func (a *Accumulator) Release() {
	if a.dense == nil {
		return
	}
	for _, d := range a.touched {
		a.dense[d] = 0
	}
	d := a.dense[:0]
	densePool.Put(&d)
	a.dense, a.touched = nil, nil
}

func (a *Accumulator) add(doc uint64, v float64) {
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

// Add adds the contribution of one posting: doc holds a term tf times and is
// dl tokens long; weight is the term's query weight times its idf.
func (a *Accumulator) Add(doc, tf, dl uint64, weight float64) {
	a.add(doc, weight*a.p.TermScore(tf, dl, a.avgdl))
}

// AddWithAvg is Add for a field with its own mean length (a title field
// scored beside the body).
func (a *Accumulator) AddWithAvg(doc, tf, dl uint64, weight, avgdl float64) {
	a.add(doc, weight*a.p.TermScore(tf, dl, avgdl))
}

// Len is the number of documents with a non-zero score.
func (a *Accumulator) Len() int { return len(a.touched) + len(a.scores) }

// each calls f for every scored document.
func (a *Accumulator) each(f func(doc uint64, s float64)) {
	for _, d := range a.touched {
		f(d, a.dense[d])
	}
	for d, s := range a.scores {
		f(d, s)
	}
}

// Hit is one ranked document.
type Hit struct {
	Doc   uint64
	ID    string
	Score float64
}

// Top returns the k best documents, best first; equal scores are ordered by
// id (ascending), which idOf resolves from the caller's document numbers.
// Only the documents that reach the k-th score have their id resolved.
func (a *Accumulator) Top(k int, idOf func(doc uint64) (string, error)) ([]Hit, error) {
	if k <= 0 || a.Len() == 0 {
		return nil, nil
	}
	threshold := math.Inf(-1)
	if a.Len() > k {
		h := make(minHeap, 0, k)
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
	hits := make([]Hit, 0, k)
	a.each(func(doc uint64, s float64) {
		if s >= threshold {
			hits = append(hits, Hit{Doc: doc, Score: s})
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

type minHeap []float64

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Score is the sum accumulated for doc so far.
func (a *Accumulator) Score(doc uint64) float64 {
	if a.dense != nil && doc < uint64(len(a.dense)) {
		return a.dense[doc]
	}
	return a.scores[doc]
}

// Docs returns the scored documents in ascending order.
func (a *Accumulator) Docs() []uint64 {
	docs := make([]uint64, 0, a.Len())
	a.each(func(d uint64, _ float64) { docs = append(docs, d) })
	sort.Slice(docs, func(i, j int) bool { return docs[i] < docs[j] })
	return docs
}

// Kth returns the k-th largest accumulated score, and false when fewer than
// k documents are scored. As every later contribution is positive, it is a
// lower bound of the final k-th score: a document that cannot reach it can
// be left out of the ranking.
func (a *Accumulator) Kth(k int) (float64, bool) {
	if k <= 0 || a.Len() < k {
		return 0, false
	}
	h := make(minHeap, 0, k)
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

// UpperBound bounds one posting's contribution: TermScore never reaches
// k1+1.
func (p Params) UpperBound(weight float64) float64 {
	return weight * (p.K1 + 1)
}
