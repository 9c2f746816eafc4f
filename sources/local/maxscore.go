package local

import (
	"context"
	"math"
	"sort"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/prefrag/prefrag/sources/local/bm25"
)

// Document-at-a-time MaxScore over one segment's documents in [lo, hi).
//
// Each task walks the "essential" lists (those whose bounds together could
// lift a document to the running threshold) in document order and probes
// the others only while a document can still reach the threshold. A
// document's exact score is then summed over the lists in their fixed order
// (the order of openLists), the same additions in the same order as an
// exhaustive term-at-a-time pass, so scores are identical to the bit and
// do not depend on pruning, tasks or segments. Pruning decisions use
// bounds with a safety margin, so a document is only skipped when it is
// certainly below the threshold.

// threshold is the k-th best score found so far by any task: a lower bound
// of the final k-th score (scores only grow as lists are added, and each
// published value is the k-th best of fully scored documents).
type threshold struct{ bits atomic.Uint64 }

func (t *threshold) load() float64 { return math.Float64frombits(t.bits.Load()) }

// raise sets the threshold to v if v is higher.
func (t *threshold) raise(v float64) {
	for {
		old := t.bits.Load()
		if math.Float64frombits(old) >= v || t.bits.CompareAndSwap(old, math.Float64bits(v)) {
			return
		}
	}
}

// candidate is a fully scored document that reached the threshold when it
// was scored.
type candidate struct {
	seg   int
	doc   uint64
	score float64
}

// collector keeps one worker's candidates: every scored document at or
// above the running threshold (ties included: the final order breaks them
// by id), and a min-heap of the k best scores for the local k-th score.
type collector struct {
	k     int
	top   []float64 // min-heap of the k best scores
	cands []candidate
	theta *threshold
	local float64 // the worker's view of the threshold
}

func newCollector(k int, theta *threshold) *collector {
	// cands is compacted when it reaches 4k+64 (add).
	return &collector{k: k, top: make([]float64, 0, k), cands: make([]candidate, 0, 4*k+64), theta: theta, local: math.Inf(-1)}
}

// refresh reads the shared threshold.
func (c *collector) refresh() float64 {
	if t := c.theta.load(); t > c.local {
		c.local = t
	}
	return c.local
}

// add records a scored document; it reports whether the threshold rose.
func (c *collector) add(seg int, doc uint64, s float64) bool {
	if s < c.local {
		return false
	}
	c.cands = append(c.cands, candidate{seg: seg, doc: doc, score: s})
	raised := false
	if len(c.top) < c.k {
		c.top = append(c.top, s)
		heapUp(c.top, len(c.top)-1)
		if len(c.top) == c.k {
			raised = c.publish(c.top[0])
		}
	} else if s > c.top[0] {
		c.top[0] = s
		heapDown(c.top, 0)
		raised = c.publish(c.top[0])
	}
	if len(c.cands) >= 4*c.k+64 {
		c.compact()
	}
	return raised
}

func (c *collector) publish(v float64) bool {
	if v <= c.local {
		return false
	}
	c.local = v
	c.theta.raise(v)
	return true
}

// compact drops the candidates below the threshold.
func (c *collector) compact() {
	t := c.refresh()
	kept := c.cands[:0]
	for _, x := range c.cands {
		if x.score >= t {
			kept = append(kept, x)
		}
	}
	c.cands = kept
}

func heapUp(h []float64, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func heapDown(h []float64, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// exhausted marks a cursor past its last posting.
const exhausted = math.MaxUint64

// cursor is one list's postings in one segment.
type cursor struct {
	it   segment.PostingsIterator
	doc  uint64 // current document, or exhausted
	tf   uint64
	norm float64
	li   int     // the list's position in the summation order
	ub   float64 // the most one posting of this list can add
	w    float64
	avg  float64
	// bb are the list's block bounds in this segment (nil for short lists).
	bb *blockBounds
	// bm is the set of the list's live documents when the segment exposes
	// it (long lists only): a probe for a document the list lacks then
	// costs a lookup instead of a walk through the postings.
	bm *roaring.Bitmap
}

func (c *cursor) set(p segment.Posting, err error, hi uint64) error {
	if err != nil {
		c.doc = exhausted
		return err
	}
	if p == nil || p.Number() >= hi {
		c.doc = exhausted
		return nil
	}
	c.doc, c.tf, c.norm = p.Number(), p.Frequency(), p.Norm()
	return nil
}

func (c *cursor) next(hi uint64) error {
	p, err := c.it.Next()
	return c.set(p, err, hi)
}

// advance moves to the first posting at or after doc (doc > c.doc).
func (c *cursor) advance(doc, hi uint64) error {
	p, err := c.it.Advance(doc)
	return c.set(p, err, hi)
}

func (c *cursor) contribution(p bm25.Params) float64 {
	return c.w * p.TermScore(c.tf, lengthFromNorm(c.norm), c.avg)
}

// margin pads a bound so that rounding in the float sums it stands for can
// never make a skipped document beat it.
func margin(v float64) float64 { return v*(1+1e-9) + 1e-9 }

// rankRange scores the documents of one task, in [lo, hi) of segment seg,
// with MaxScore, and adds those reaching the threshold to col.
type rankRange struct {
	p       bm25.Params
	pruning bool
	seg     int
	// curs are the task's cursors, all positioned on their first posting
	// in [lo, hi), sorted by increasing bound.
	curs []*cursor
	hi   uint64
	col  *collector
	// contrib is scratch, one per list of the query (the summation
	// order), all zero between documents.
	contrib []float64

	// prefix[i] bounds what curs[0..i] can add together.
	prefix []float64
	theta  float64
	// ne: curs[:ne] are non-essential (their bounds together stay below
	// the threshold: a document in none of the others cannot reach it).
	ne int
}

// rank scores the task's documents.
func (r *rankRange) rank(ctx context.Context) error {
	r.prefix = make([]float64, len(r.curs))
	sum := 0.0
	for i, c := range r.curs {
		sum += c.ub
		r.prefix[i] = margin(sum)
	}
	r.theta = r.col.refresh()
	r.repartition()
	for n := 0; r.ne < len(r.curs); n++ {
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if t := r.col.refresh(); t > r.theta {
				r.theta = t
				if r.repartition(); r.ne >= len(r.curs) {
					break
				}
			}
		}
		d := r.nextDoc()
		if d == exhausted {
			break
		}
		partial, err := r.essential(d)
		if err != nil {
			return err
		}
		pruned, err := r.probe(d, partial)
		if err != nil {
			return err
		}
		if s := r.sum(); !pruned && r.col.add(r.seg, d, s) {
			r.theta = r.col.local
			r.repartition()
		}
	}
	return nil
}

// repartition moves the cursors whose bounds, with those before them,
// stay below the threshold out of the essential ones.
func (r *rankRange) repartition() {
	for r.ne < len(r.curs) && r.pruning && r.prefix[r.ne] < r.theta {
		r.ne++
	}
}

// nextDoc is the next document of the essential cursors.
func (r *rankRange) nextDoc() uint64 {
	d := uint64(exhausted)
	for _, c := range r.curs[r.ne:] {
		d = min(d, c.doc)
	}
	return d
}

// essential scores document d in the essential lists, which move past it,
// and returns their sum.
func (r *rankRange) essential(d uint64) (float64, error) {
	partial := 0.0
	for _, c := range r.curs[r.ne:] {
		if c.doc == d {
			v := c.contribution(r.p)
			r.contrib[c.li] = v
			partial += v
			if err := c.next(r.hi); err != nil {
				return 0, err
			}
		}
	}
	return partial, nil
}

// probe adds document d's scores in the non-essential lists, from the one
// with the largest bound down, while d can still reach the threshold; it
// reports whether d was pruned (certainly below it).
func (r *rankRange) probe(d uint64, partial float64) (bool, error) {
	for j := r.ne - 1; j >= 0; j-- {
		if partial+r.prefix[j] < r.theta {
			return true, nil
		}
		c := r.curs[j]
		if c.doc < d && c.bm != nil && !c.bm.Contains(uint32(d)) {
			continue // d lacks this term
		}
		if c.doc < d && c.bb != nil {
			// The block that would hold d bounds its contribution.
			rest := 0.0
			if j > 0 {
				rest = r.prefix[j-1]
			}
			if margin(partial+c.w*c.bb.at(d))+rest < r.theta {
				return true, nil
			}
		}
		if c.doc < d {
			if err := c.advance(d, r.hi); err != nil {
				return false, err
			}
		}
		if c.doc == d {
			v := c.contribution(r.p)
			r.contrib[c.li] = v
			partial += v
		}
	}
	return false, nil
}

// sum is the document's exact score, its contributions added in the
// query's fixed order; it clears them for the next document.
func (r *rankRange) sum() float64 {
	s := 0.0
	for i, v := range r.contrib {
		s += v
		r.contrib[i] = 0
	}
	return s
}

// sortCursors orders cursors by increasing bound (then summation order, so
// the partition is deterministic).
func sortCursors(curs []*cursor) {
	sort.Slice(curs, func(i, j int) bool {
		if curs[i].ub != curs[j].ub {
			return curs[i].ub < curs[j].ub
		}
		return curs[i].li < curs[j].li
	})
}
