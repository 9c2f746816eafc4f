package local

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/prefrag/prefrag/sources/local/bm25"
)

// Block-max bounds: for a long postings list in one segment, the largest
// term score (tf·(k1+1)/(tf + k1·(1−b+b·dl/avgdl)), before the query weight)
// of each block of blockSize postings and of the whole list. They are
// computed the first time a query needs the list, with the same float
// operations as scoring, and kept with the open index (segments never
// change under an open handle). A posting's contribution is weight × its
// term score, and float multiplication is monotone, so weight × a block's
// maximum bounds every contribution of that block exactly.

const (
	// blockSize is how many postings share one bound.
	blockSize = 128
	// maxBoundLists bounds the lists one open index keeps.
	maxBoundLists = 1 << 16
)

// blockBounds are one list's bounds in one segment.
type blockBounds struct {
	last []uint64  // last document number of each block
	max  []float64 // largest term score in each block
	all  float64   // largest term score in the list
}

// blockAt returns the index of the first block whose last document is at
// or after doc, starting the search at from; len(last) when none.
func (b *blockBounds) blockAt(doc uint64, from int) int {
	if from < len(b.last) && b.last[from] >= doc {
		return from
	}
	return from + sort.Search(len(b.last)-from, func(i int) bool { return b.last[from+i] >= doc })
}

type listKey struct {
	seg         segment.Segment
	field, term string
}

// listEntry is one term's postings in one segment: the list (immutable,
// shared by the queries and their workers), its count of live postings and
// its block bounds, computed on first need.
type listEntry struct {
	pl    segment.PostingsList
	count uint64
	// uses counts the queries that opened the list: bounds cost a full
	// read of the list, so a list gets them on its second use (a term
	// searched once, as on the first query after opening, is not worth it).
	uses atomic.Int64

	once sync.Once
	b    *blockBounds
	err  error
}

// bounds returns the list's block bounds, computing them on first use.
func (e *listEntry) bounds(p bm25.Params, avg float64) (*blockBounds, error) {
	e.once.Do(func() { e.b, e.err = computeBounds(e.pl, p, avg) })
	return e.b, e.err
}

// listCache holds the postings lists an open index has looked up (their
// dictionary lookups and bitmap headers are then paid once), with their
// bounds. An open handle never sees its segments change.
type listCache struct {
	mu sync.Mutex
	m  map[listKey]*listEntry
}

// get returns a term's postings in one segment (count 0 when absent).
func (c *listCache) get(s *scorch.SegmentSnapshot, dict segment.TermDictionary, field, term string) (*listEntry, error) {
	key := listKey{s.Segment(), field, term}
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return e, nil
	}
	pl, err := dict.PostingsList([]byte(term), s.Deleted(), nil)
	if err != nil {
		return nil, err
	}
	e = &listEntry{pl: pl, count: pl.Count()}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxBoundLists {
		c.m = make(map[listKey]*listEntry)
	}
	if old, ok := c.m[key]; ok {
		e = old
	} else {
		c.m[key] = e
	}
	c.mu.Unlock()
	return e, nil
}

func computeBounds(pl segment.PostingsList, p bm25.Params, avg float64) (*blockBounds, error) {
	n := int(pl.Count())
	b := &blockBounds{
		last: make([]uint64, 0, n/blockSize+1),
		max:  make([]float64, 0, n/blockSize+1),
	}
	it := pl.Iterator(true, true, false, nil)
	in, m := 0, 0.0
	var last uint64
	for {
		posting, err := it.Next()
		if err != nil {
			return nil, err
		}
		if posting == nil {
			break
		}
		last = posting.Number()
		s := p.TermScore(posting.Frequency(), lengthFromNorm(posting.Norm()), avg)
		m = max(m, s)
		b.all = max(b.all, s)
		if in++; in == blockSize {
			b.last, b.max = append(b.last, last), append(b.max, m)
			in, m = 0, 0
		}
	}
	if in > 0 {
		b.last, b.max = append(b.last, last), append(b.max, m)
	}
	return b, nil
}
