package local

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/prefrag/prefrag/sources/local/bm25"
)

// Block-max bounds: for a long postings list in one segment, the largest
// term score (tf·(k1+1)/(tf + k1·(1−b+b·dl/avgdl)), before the query
// weight) of each block of the segment's document numbers and of the whole
// list. A block is a range of 2^shift document numbers, shift chosen per
// list so that a block holds about blockPostings of its postings; the block
// holding a document is then a shift away, with no table of block ends.
//
// Each block's bound takes one byte: a fraction q/255 of the list's largest
// score, q rounded up until all·q/255 is at least the block's largest score
// as computed with the same float operations as scoring. A posting's
// contribution is weight × its term score, and float multiplication is
// monotone, so weight × all·q/255 bounds every contribution of the block
// exactly; the bound is at most 1/255 of the list's largest score looser
// than the block's own maximum, which costs pruning next to nothing.
//
// Bounds are computed the first time a query needs them (on a term's
// second query, see searchTuning.boundsAfterUses) and kept with the open
// index: segments never change under an open handle. They are all an open
// index keeps on the heap: postings lists are looked up again by every
// query, as Bleve's own searches do.

const (
	// blockPostings is about how many postings of a list share one bound.
	blockPostings = 128
	// maxBoundTerms bounds the terms one open index keeps bounds for; the
	// cache starts over when it is full.
	maxBoundTerms = 1 << 16
)

// quantum[q] is q/255: the fraction of a list's largest score a block
// bound of q stands for (quantum[255] is exactly 1).
var quantum = func() (t [256]float64) {
	for q := range t {
		t[q] = float64(q) / 255
	}
	return t
}()

// blockBounds are one list's bounds in one segment, computed once (see
// termBounds.bounds).
type blockBounds struct {
	q     []uint8 // q[i]: the bound of block i is all·quantum[q[i]]
	all   float64 // the largest term score in the list
	shift uint8   // block i holds the documents i<<shift … (i+1)<<shift − 1

	once sync.Once
	err  error
}

// at returns the bound of the block holding doc (0 past the last block).
func (b *blockBounds) at(doc uint64) float64 {
	i := doc >> b.shift
	if i >= uint64(len(b.q)) {
		return 0
	}
	return b.all * quantum[b.q[i]]
}

// blockShift is the shift of blocks of about blockPostings postings of a
// list of count postings in a segment of docs document numbers.
func blockShift(docs, count uint64) uint8 {
	if count == 0 {
		return 0
	}
	per := docs * blockPostings / count // document numbers per block
	if per < 2 {
		return 0
	}
	return uint8(bits.Len64(per) - 1)
}

// compute reads every posting of pl, a list of a segment with docs
// document numbers, into b.
func (b *blockBounds) compute(pl segment.PostingsList, docs uint64, p bm25.Params, avg float64) error {
	b.shift = blockShift(docs, pl.Count())
	shift := b.shift
	maxima := make([]float64, docs>>shift+1)
	it := pl.Iterator(true, true, false, nil)
	used := 0
	for {
		posting, err := it.Next()
		if err != nil {
			return err
		}
		if posting == nil {
			break
		}
		i := int(posting.Number() >> shift)
		if i >= len(maxima) {
			grown := make([]float64, i+1)
			copy(grown, maxima)
			maxima = grown
		}
		s := p.TermScore(posting.Frequency(), lengthFromNorm(posting.Norm()), avg)
		maxima[i] = max(maxima[i], s)
		b.all = max(b.all, s)
		used = i + 1
	}
	b.q = make([]uint8, used)
	for i, m := range maxima[:used] {
		b.q[i] = quantize(m, b.all)
	}
	return nil
}

// quantize returns the least q whose bound all·quantum[q] is at least m
// (m ≤ all).
func quantize(m, all float64) uint8 {
	if m <= 0 || all <= 0 {
		return 0
	}
	q := int(m / all * 255)
	for q < 255 && all*quantum[q] < m {
		q++
	}
	return uint8(q)
}

// fieldTerm names a term of one field.
type fieldTerm struct{ field, term string }

// termBounds is what an open index keeps of a term with a long list in
// some segment: how many queries searched it, and the block bounds of its
// long lists, one slot per segment (allocated with the first bounds).
type termBounds struct {
	// uses counts the queries that searched the term: bounds cost a full
	// read of a list, so a list gets them on its term's second query (a
	// term searched once, as on the first query after opening, is not
	// worth it).
	uses  atomic.Int64
	slots atomic.Pointer[[]atomic.Pointer[blockBounds]]
}

// bounds returns the block bounds of the term's list pl in segment seg of
// nsegs (a segment of docs document numbers), computing them on first use.
func (t *termBounds) bounds(seg, nsegs int, pl segment.PostingsList, docs uint64, p bm25.Params, avg float64) (*blockBounds, error) {
	slots := t.slots.Load()
	if slots == nil {
		fresh := make([]atomic.Pointer[blockBounds], nsegs)
		if !t.slots.CompareAndSwap(nil, &fresh) {
			slots = t.slots.Load()
		} else {
			slots = &fresh
		}
	}
	slot := &(*slots)[seg]
	b := slot.Load()
	if b == nil {
		slot.CompareAndSwap(nil, new(blockBounds))
		b = slot.Load()
	}
	b.once.Do(func() { b.err = b.compute(pl, docs, p, avg) })
	if b.err != nil {
		return nil, b.err
	}
	return b, nil
}

// boundsCache holds the terms with long lists an open index has searched,
// with their bounds. An open handle never sees its segments change; the
// cache checks it and starts over if they do.
type boundsCache struct {
	mu    sync.Mutex
	segs  []segment.Segment // the segments the slots stand for, in order
	terms map[fieldTerm]*termBounds
}

// use returns the entry of a term of field for a query over segs,
// counting the query as one use.
func (c *boundsCache) use(segs []*scorch.SegmentSnapshot, field, term string) *termBounds {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sameSegments(segs) || len(c.terms) >= maxBoundTerms {
		c.segs = c.segs[:0]
		for _, s := range segs {
			c.segs = append(c.segs, s.Segment())
		}
		c.terms = make(map[fieldTerm]*termBounds)
	}
	key := fieldTerm{field, term}
	e := c.terms[key]
	if e == nil {
		e = new(termBounds)
		c.terms[key] = e
	}
	e.uses.Add(1)
	return e
}

func (c *boundsCache) sameSegments(segs []*scorch.SegmentSnapshot) bool {
	if c.terms == nil || len(segs) != len(c.segs) {
		return false
	}
	for i, s := range segs {
		if s.Segment() != c.segs[i] {
			return false
		}
	}
	return true
}
