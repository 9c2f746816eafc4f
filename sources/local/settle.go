package local

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// SettleSegments is the number of index segments an ingest leaves behind:
// at its end the segments are merged down to it, so that a corpus is built
// the same way every time (Bleve's background merger stops wherever it is
// when the writer closes, leaving a count that varies from build to build,
// and search time with it). Two keeps one segment per core for searches
// and costs one rewrite of the index; 0 leaves the segments as they are.
var SettleSegments = 2

// settleRounds bounds the forced merges of one settle.
const settleRounds = 4

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
	r, err := adv.Reader()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0, fmt.Errorf("index reader is a %T", r)
	}
	n := 0
	for _, s := range snap.Segments() {
		if s.Count() > 0 {
			n++
		}
	}
	return n, nil
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
	if err != nil || SettleSegments <= 0 {
		return n, err
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
	for round := 0; round < settleRounds && n > SettleSegments; round++ {
		if err := s.ForceMerge(ctx, settlePlan(n, SettleSegments)); err != nil {
			return n, writeFailure(w.name, w.path, err)
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if n, err = w.segments(); err != nil {
			return n, err
		}
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

// settlePlan merges n segments into target: the segments, largest first,
// are cut into target runs of consecutive ones, each merged into one.
func settlePlan(n, target int) *mergeplan.MergePlanOptions {
	per := (n + target - 1) / target
	return &mergeplan.MergePlanOptions{
		MaxSegmentsPerTier:   target,
		MaxSegmentSize:       mergeplan.MaxSegmentSizeLimit,
		MaxSegmentFileSize:   1 << 50,
		TierGrowth:           1,
		SegmentsPerMergeTask: max(per, 2),
		FloorSegmentSize:     mergeplan.MaxSegmentSizeLimit,
		FloorSegmentFileSize: 1 << 50,
		ReclaimDeletesWeight: 2,
		CalcBudget:           func(int64, int64, *mergeplan.MergePlanOptions) int { return target },
	}
}
