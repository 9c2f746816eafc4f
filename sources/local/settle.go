package local

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	index "github.com/blevesearch/bleve_index_api"
)

// settleRounds bounds the merges of one settle.
const settleRounds = 16

// segments counts the segments of the writer's index as of now.
func (w *Writer) segments() (int, error) {
	n, err := SegmentCount(w.idx)
	if err != nil {
		return 0, fmt.Errorf("internal error: %w", err)
	}
	return n, nil
}

// SegmentCount counts the non-empty segments of an open Bleve (scorch)
// index as of now.
func SegmentCount(idx bleve.Index) (int, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return 0, err
	}
	sizes, err := liveSegmentSizes(adv)
	return len(sizes), err
}

// openSnapshot opens a reader of a scorch index as of now, as the
// snapshot whose segments a search reads one by one; Close it when done.
func openSnapshot(adv index.Index) (*scorch.IndexSnapshot, error) {
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		r.Close()
		return nil, fmt.Errorf("local index: unexpected index reader %T", r)
	}
	return snap, nil
}

// snapshot is openSnapshot of the corpus's index.
func (h *handle) snapshot() (*scorch.IndexSnapshot, error) {
	adv, err := h.idx.Advanced()
	if err != nil {
		return nil, err
	}
	return openSnapshot(adv)
}

// liveSegmentSizes lists the live passages of each non-empty segment of an
// open scorch index, as of now.
func liveSegmentSizes(adv index.Index) ([]int64, error) {
	snap, err := openSnapshot(adv)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	var sizes []int64
	for _, s := range snap.Segments() {
		if n := s.Count(); n > 0 {
			sizes = append(sizes, int64(n))
		}
	}
	return sizes, nil
}

// Settle makes everything queued durable, then merges the index down to
// SettleSegments segments and makes that durable too. It returns the
// segment count afterwards. A cancelled ctx stops the merge; the index
// stays as it was before the merge that was cut short.
func (w *Writer) Settle(ctx context.Context) (segments int, err error) {
	defer recoverWrite(w.name, w.path, &err)
	if err := w.sync(); err != nil {
		return 0, err
	}
	n, err := w.segments()
	if err != nil || w.opts.SettleSegments <= 0 {
		return n, err
	}
	docs, err := w.reader.DocCount()
	if err != nil {
		return n, err
	}
	target := w.opts.settleTarget(docs)
	if n <= target {
		return n, nil
	}
	adv, err := w.idx.Advanced()
	if err != nil {
		return n, err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return n, fmt.Errorf("internal error: index is a %T", adv)
	}
	// The writer's reader holds the segments about to be merged away:
	// released, Bleve can delete their files once the merge is durable.
	if err := w.reader.Close(); err != nil {
		return n, err
	}
	w.reader = nil
	defer func() {
		if w.reader == nil {
			if r, rerr := adv.Reader(); rerr == nil {
				w.reader = r
			} else if err == nil {
				err = rerr
			}
		}
	}()
	// What Go's heap freed while the passages were analysed goes back to
	// the system before the merges map the index.
	debug.FreeOSMemory()
	for round := 0; round < settleRounds; round++ {
		sizes, err := w.segmentSizes()
		if err != nil {
			return n, err
		}
		n = len(sizes)
		plan := settleStep(sizes, target)
		if plan == nil {
			break
		}
		// One merge at a time: Bleve keeps the segments a merge read until
		// every merge of a plan is done.
		if err := s.ForceMerge(ctx, plan); err != nil {
			return n, writeFailure(w.name, w.path, err)
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
	}
	if n, err = w.segments(); err != nil {
		return n, err
	}
	// An empty batch (the counters written again) returns once the merged
	// segments are recorded durably, so that the next open finds them.
	if err := w.forceFlush(); err != nil {
		return n, err
	}
	if err := w.settle(); err != nil {
		return n, err
	}
	// Bleve deletes the merged-away segment files a moment after that
	// batch, in the background: a writer closed at once would leave them
	// on disk (twice the index size) until its next write.
	waitForCleanup(filepath.Join(w.path, "store"), n, cleanupWait)
	return n, nil
}

// cleanupWait bounds the wait for Bleve to delete merged-away files.
const cleanupWait = 5 * time.Second

// waitForCleanup waits until the folder holds at most want segment files,
// or limit has passed.
func waitForCleanup(store string, want int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		files, err := filepath.Glob(filepath.Join(store, "*.zap"))
		if err != nil || len(files) <= want || time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// segmentSizes lists the live passages of each non-empty segment of the
// writer's index, as of now.
func (w *Writer) segmentSizes() ([]int64, error) {
	sizes, err := liveSegmentSizes(w.adv)
	if err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	return sizes, nil
}

// settleStep plans the next merge of a settle to target segments, nil
// when the segments are settled. A settle aims at target segments of an
// even share of the passages each: segments holding three quarters of a
// share are left alone, and each step merges a run of the others
// (consecutive in Bleve's planning order, largest first) whose passages
// come closest to an even share of what is left, never much more. So a
// settle depends only on the segments it starts from, and no merge reads
// much more than a share of the index.
func settleStep(sizes []int64, target int) *mergeplan.MergePlanOptions {
	if target <= 0 || len(sizes) <= target {
		return nil
	}
	sorted := slices.Clone(sizes)
	slices.SortFunc(sorted, func(a, b int64) int { return cmp.Compare(b, a) })
	var total int64
	for _, n := range sorted {
		total += n
	}
	share := (total + int64(target) - 1) / int64(target)
	big := max(share*3/4, 1)
	var small []int64
	var rest int64
	for _, n := range sorted {
		if n < big {
			small = append(small, n)
			rest += n
		}
	}
	if len(small) < 2 {
		return nil
	}
	// Full segments beyond the target (the background merger made them,
	// or deleted passages left them uneven): the small ones still become
	// one segment, so the count does not depend on how far the merger got.
	groups := max(target-(len(sorted)-len(small)), 1)
	k, sum := len(small), rest
	if groups > 1 {
		k, sum = closestRun(small, rest/int64(groups))
	}
	m := len(small)
	return &mergeplan.MergePlanOptions{
		MaxSegmentsPerTier: 1,
		// Bleve plans merges of the segments under half MaxSegmentSize:
		// exactly the small ones.
		MaxSegmentSize:       2 * big,
		MaxSegmentFileSize:   1 << 50,
		TierGrowth:           1,
		SegmentsPerMergeTask: k,
		FloorSegmentSize:     1,
		ReclaimDeletesWeight: 2,
		// One merge per plan: with m eligible segments, a budget of m-1
		// stops the planner after its first merge.
		CalcBudget: func(int64, int64, *mergeplan.MergePlanOptions) int { return m - 1 },
		// Of the runs of k segments Bleve considers, the one chosen here
		// (or one of the same passages: equal sizes are interchangeable).
		ScoreSegments: func(segs []mergeplan.Segment, _ *mergeplan.MergePlanOptions) float64 {
			var s int64
			for _, seg := range segs {
				s += seg.LiveSize()
			}
			return math.Abs(float64(s - sum))
		},
	}
}

// closestRun picks the run of at least two consecutive sizes whose sum is
// closest to want without passing want by more than an eighth; failing
// that, the two smallest. It returns the run's length and sum.
func closestRun(sizes []int64, want int64) (int, int64) {
	limit := want + want/8
	bestK, bestSum := 0, int64(0)
	for k := 2; k <= len(sizes); k++ {
		var s int64
		for i := 0; i < len(sizes); i++ {
			s += sizes[i]
			if i >= k {
				s -= sizes[i-k]
			}
			if i < k-1 || s > limit {
				continue
			}
			if bestK == 0 || absDiff(s, want) < absDiff(bestSum, want) {
				bestK, bestSum = k, s
			}
		}
	}
	if bestK == 0 {
		n := len(sizes)
		return 2, sizes[n-1] + sizes[n-2]
	}
	return bestK, bestSum
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}
