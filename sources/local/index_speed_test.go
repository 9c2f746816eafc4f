package local

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestIndexSpeed indexes the .jsonl file named by PREFRAG_INDEX_JSONL (a
// profiling harness: run with -cpuprofile; skipped without it).
func TestIndexSpeed(t *testing.T) {
	src := os.Getenv("PREFRAG_INDEX_JSONL")
	if src == "" {
		t.Skip("PREFRAG_INDEX_JSONL not set")
	}
	dir := t.TempDir()
	if d := os.Getenv("PREFRAG_INDEX_DIR"); d != "" {
		dir = d
	}
	if n, err := strconv.Atoi(os.Getenv("PREFRAG_SETTLE")); err == nil {
		defer func(old int) { SettleSegments = old }(SettleSegments)
		SettleSegments = n
	}
	if n, err := strconv.Atoi(os.Getenv("PREFRAG_BATCH")); err == nil {
		defer func(old int) { BatchPassages = old }(BatchPassages)
		BatchPassages = n
	}
	if n, err := strconv.Atoi(os.Getenv("PREFRAG_BATCH_MB")); err == nil {
		defer func(old int) { BatchBytes = old }(BatchBytes)
		BatchBytes = n << 20
	}
	if n, err := strconv.Atoi(os.Getenv("PREFRAG_SEGVER")); err == nil {
		writerTestConfig = map[string]interface{}{"forceSegmentType": "zap", "forceSegmentVersion": n}
		defer func() { writerTestConfig = nil }()
	}
	start := time.Now()
	rep, err := Index(context.Background(), dir, "speed", []string{src}, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("%d passages in %v: %.0f/s, %d bytes, %d segments after a merge of %v", rep.Passages, took, float64(rep.Passages)/took.Seconds(), rep.Stats.SizeBytes, rep.Segments, rep.Merge)
}
