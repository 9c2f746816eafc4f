package local

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local/bm25"
)

// MaxQueryTerms bounds the distinct terms of one query.
const MaxQueryTerms = 256

// queryTerm is one distinct analysed term and how often the query has it.
type queryTerm struct {
	term  string
	count int
}

// analyzeQuery runs the en analyzer over the query text and returns its
// distinct terms, sorted, so scores are summed in a fixed order.
func analyzeQuery(h *handle, query string) []queryTerm {
	counts := make(map[string]int)
	for _, tok := range h.en.Analyze([]byte(query)) {
		counts[string(tok.Term)]++
	}
	terms := make([]queryTerm, 0, len(counts))
	for t, n := range counts {
		terms = append(terms, queryTerm{term: t, count: n})
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i].term < terms[j].term })
	if len(terms) > MaxQueryTerms {
		terms = terms[:MaxQueryTerms]
	}
	return terms
}

// lengthFromNorm recovers a field's exact token count from the norm Bleve
// keeps with each posting (1/√length, stored as a float32; exact for lengths
// far beyond a passage).
func lengthFromNorm(norm float64) uint64 {
	if norm <= 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return 0
	}
	return uint64(math.Round(1 / (norm * norm)))
}

// scoreList is one query term in one field: its query weight (count × idf ×
// field boost), the field's mean length, the most one posting can add, its
// postings in every segment (nil where the segment lacks the term) and,
// when a list is long enough for block bounds, what the open index keeps
// of the term (kept).
type scoreList struct {
	field, term string
	weight, avg float64
	bound       float64
	postings    []segmentList
	kept        *termBounds
}

// segmentList is a term's postings in one segment: the list, immutable and
// shared by the query's workers, and its count of live postings.
type segmentList struct {
	pl    segment.PostingsList
	count uint64
}

// openLists finds the postings of every query term (and, with a title
// boost, of every term in titles) in every segment, ordered by decreasing
// bound, then field and term: scores are always summed in this order, so
// they do not depend on which documents pruning skipped, nor on the segment
// layout. A term's document frequency counts live passages only.
func openLists(segs []*scorch.SegmentSnapshot, h *handle, terms []queryTerm, n uint64, opts Options) ([]*scoreList, error) {
	var lists []*scoreList
	long := opts.tuning.resolved().blockMaxMin
	add := func(field string, boost float64, total int64) error {
		avg := bm25.Collection{N: n, TotalLength: uint64(max(total, 0))}.AvgLength()
		// The segments' dictionaries are read on every core.
		bySeg := make([][]segmentList, len(segs))
		err := forEach(len(segs), func(i int) (err error) {
			bySeg[i], err = segmentPostings(segs[i], field, terms)
			return err
		})
		if err != nil {
			return err
		}
		for ti, t := range terms {
			var df, longest uint64
			pls := make([]segmentList, len(segs))
			for i := range segs {
				pls[i] = bySeg[i][ti]
				df += pls[i].count
				longest = max(longest, pls[i].count)
			}
			if df == 0 {
				continue
			}
			w := boost * float64(t.count) * bm25.IDF(n, df)
			l := &scoreList{field: field, term: t.term, weight: w, avg: avg, bound: opts.BM25.UpperBound(w), postings: pls}
			if longest >= long {
				l.kept = h.bounds.use(segs, field, t.term)
			}
			lists = append(lists, l)
		}
		return nil
	}
	err := add(fieldBody, 1, h.stats.BodyTokens)
	if err == nil && opts.TitleBoost > 0 {
		err = add(fieldTitle, opts.TitleBoost, h.stats.TitleTokens)
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(lists, func(i, j int) bool {
		a, b := lists[i], lists[j]
		if a.bound != b.bound {
			return a.bound > b.bound
		}
		if a.field != b.field {
			return a.field < b.field
		}
		return a.term < b.term
	})
	return lists, nil
}

// segmentPostings looks every term up in one segment's dictionary of
// field: the postings of each (none where the segment lacks it) and their
// count of live passages.
func segmentPostings(s *scorch.SegmentSnapshot, field string, terms []queryTerm) ([]segmentList, error) {
	d, err := s.Segment().Dictionary(field)
	if err != nil {
		return nil, err
	}
	out := make([]segmentList, len(terms))
	for i, t := range terms {
		pl, err := d.PostingsList([]byte(t.term), s.Deleted(), nil)
		if err != nil {
			return nil, err
		}
		if count := pl.Count(); count > 0 {
			out[i] = segmentList{pl: pl, count: count}
		}
	}
	return out, nil
}

// forEach runs f for 0 … n−1 on up to GOMAXPROCS goroutines and returns
// the errors it returned.
func forEach(n int, f func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			if err := f(i); err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n && errs[w] == nil; i = int(next.Add(1) - 1) {
				errs[w] = f(i)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// rankTask is a range of one segment's document numbers.
type rankTask struct {
	seg    int
	lo, hi uint64
}

// searchTuning are thresholds of the search; a zero field takes its
// default. Tests lower them to exercise every path on small corpora.
type searchTuning struct {
	// minTaskDocs is the smallest range a segment is split into for
	// parallel search (default 1<<15).
	minTaskDocs uint64
	// blockMaxMin is the shortest list (postings in one segment) that gets
	// block bounds; shorter lists are cheap to read anyway (default 2048).
	blockMaxMin uint64
	// boundsAfterUses is how many queries must have opened a list before
	// it gets bounds (default 2); negative: from the first.
	boundsAfterUses int64
}

// resolved returns t with its defaults filled in.
func (t searchTuning) resolved() searchTuning {
	if t.minTaskDocs == 0 {
		t.minTaskDocs = 1 << 15
	}
	if t.blockMaxMin == 0 {
		t.blockMaxMin = 2048
	}
	if t.boundsAfterUses == 0 {
		t.boundsAfterUses = 2
	}
	if t.boundsAfterUses < 0 {
		t.boundsAfterUses = 0
	}
	return t
}

// splitTasks cuts the segments into ranges so that workers can share the
// work of an index with few large segments.
func splitTasks(segs []*scorch.SegmentSnapshot, workers int, minTaskDocs uint64) []rankTask {
	var total uint64
	for _, s := range segs {
		total += uint64(s.FullSize())
	}
	size := total + 1
	// One range per worker: every range opens a cursor on every query
	// term and starts below the shared threshold, so finer ranges cost more
	// than the balance they buy. Measured at 1M passages, 2 segments, 2
	// cores: 4 ranges per worker took 24 CPU-ms and 11.6 ms p50 per query,
	// one range per worker 13–14 CPU-ms and 7.1–7.5 ms.
	if workers > 1 {
		size = max(total/uint64(workers), minTaskDocs)
	}
	var tasks []rankTask
	for i, s := range segs {
		n := uint64(s.FullSize())
		for lo := uint64(0); lo < n; lo += size {
			tasks = append(tasks, rankTask{seg: i, lo: lo, hi: min(lo+size, n)})
		}
	}
	return tasks
}

// ranking is one query's work, shared by its workers.
type ranking struct {
	p bm25.Params
	// pruning is on unless the search is exhaustive; tune holds the
	// thresholds.
	pruning bool
	tune    searchTuning
	lists   []*scoreList
	segs    []*scorch.SegmentSnapshot
	tasks   []rankTask
	next    atomic.Int64
}

// worker is what one worker of a query reuses from task to task: a cursor
// per list, with its postings iterator.
type worker struct {
	curs []*cursor
	pool []cursor
}

// cursors opens the lists of one task, positioned on their first posting in
// the task's range.
func (rk *ranking) cursors(t rankTask, wk *worker) ([]*cursor, error) {
	curs := wk.curs[:0]
	for li, l := range rk.lists {
		e := l.postings[t.seg]
		if e.pl == nil {
			continue
		}
		c := &wk.pool[li]
		*c = cursor{it: e.pl.Iterator(true, true, false, c.it), li: li, ub: l.bound, w: l.weight, avg: l.avg}
		if rk.pruning && e.count >= rk.tune.blockMaxMin && l.kept.uses.Load() >= rk.tune.boundsAfterUses {
			docs := uint64(rk.segs[t.seg].FullSize())
			bb, err := l.kept.bounds(t.seg, len(rk.segs), e.pl, docs, rk.p, l.avg)
			if err != nil {
				return nil, err
			}
			c.bb, c.ub = bb, l.weight*bb.all
			if o, ok := c.it.(segment.OptimizablePostingsIterator); ok {
				c.bm = o.ActualBitmap()
			}
		}
		var err error
		if t.lo == 0 {
			err = c.next(t.hi)
		} else {
			err = c.advance(t.lo, t.hi)
		}
		if err != nil {
			return nil, err
		}
		if c.doc != exhausted {
			curs = append(curs, c)
		}
	}
	return curs, nil
}

// run is one worker: it takes tasks until none is left.
func (rk *ranking) run(ctx context.Context, col *collector) error {
	contrib := make([]float64, len(rk.lists))
	wk := &worker{pool: make([]cursor, len(rk.lists))}
	for {
		ti := int(rk.next.Add(1) - 1)
		if ti >= len(rk.tasks) {
			return nil
		}
		t := rk.tasks[ti]
		curs, err := rk.cursors(t, wk)
		if err != nil {
			return err
		}
		wk.curs = curs
		if len(curs) == 0 {
			continue
		}
		sortCursors(curs)
		r := rankRange{p: rk.p, pruning: rk.pruning, seg: t.seg, curs: curs, hi: t.hi, col: col, contrib: contrib}
		if err := r.rank(ctx); err != nil {
			return err
		}
	}
}

// search ranks the passages of one open index for query by BM25, exactly:
// document-at-a-time MaxScore (see rankRange.rank) over ranges of the segments,
// run on up to GOMAXPROCS cores with a shared threshold.
func search(ctx context.Context, h *handle, query string, k int, opts Options) ([]sources.Document, error) {
	if k <= 0 {
		return nil, nil
	}
	terms := analyzeQuery(h, query)
	if len(terms) == 0 {
		return nil, nil
	}
	snap, err := h.snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	n, err := snap.DocCount()
	if err != nil {
		return nil, err
	}
	segs := snap.Segments()
	lists, err := openLists(segs, h, terms, n, opts)
	if err != nil || len(lists) == 0 {
		return nil, err
	}
	workers := runtime.GOMAXPROCS(0)
	tune := opts.tuning.resolved()
	rk := &ranking{p: opts.BM25, pruning: !opts.Exhaustive, tune: tune, lists: lists, segs: segs, tasks: splitTasks(segs, workers, tune.minTaskDocs)}
	workers = min(workers, len(rk.tasks))
	var theta threshold
	theta.bits.Store(math.Float64bits(math.Inf(-1)))
	cols := make([]*collector, max(workers, 1))
	for i := range cols {
		cols[i] = newCollector(k, &theta)
	}
	if workers <= 1 {
		err = rk.run(ctx, cols[0])
	} else {
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = rk.run(ctx, cols[i])
			}()
		}
		wg.Wait()
		err = errors.Join(errs...)
	}
	if err != nil {
		return nil, err
	}
	hits, err := topHits(&h.stored, segs, cols, k)
	if err != nil {
		return nil, err
	}
	docs := make([]sources.Document, 0, len(hits))
	for _, hit := range hits {
		hit.passage.Score = hit.score
		docs = append(docs, hit.passage)
	}
	return docs, nil
}

// hit is a ranked passage.
type hit struct {
	candidate
	passage sources.Document
}

// topHits merges the workers' candidates: the k best scores, equal scores
// by id (ascending). Only the candidates that reach the k-th score are
// read (their id and stored fields).
func topHits(stored *storedFiles, segs []*scorch.SegmentSnapshot, cols []*collector, k int) ([]hit, error) {
	var all []candidate
	for _, c := range cols {
		all = append(all, c.cands...)
	}
	if len(all) == 0 {
		return nil, nil
	}
	kth := math.Inf(-1)
	if len(all) > k {
		scores := make([]float64, len(all))
		for i, c := range all {
			scores[i] = c.score
		}
		sort.Float64s(scores)
		kth = scores[len(scores)-k]
	}
	hits := make([]hit, 0, k)
	for _, c := range all {
		if c.score >= kth {
			hits = append(hits, hit{candidate: c})
		}
	}
	// The passages are read (and uncompressed) on every core.
	err := forEach(len(hits), func(i int) (err error) {
		hits[i].passage, err = stored.passage(segs[hits[i].seg], hits[i].doc)
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].passage.ID < hits[j].passage.ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}
