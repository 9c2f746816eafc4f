package local

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// planSeg is a segment as Bleve's merge planner sees it.
type planSeg struct {
	id   uint64
	size int64
}

func (s planSeg) Id() uint64          { return s.id }
func (s planSeg) FullSize() int64     { return s.size }
func (s planSeg) LiveSize() int64     { return s.size }
func (s planSeg) HasVector() bool     { return false }
func (s planSeg) FileSize() int64     { return s.size * 1000 }
func (s planSeg) LiveFileSize() int64 { return s.size * 1000 }

// settleWithPlanner runs settleStep against Bleve's own merge planner
// until it says the segments are settled, applying each planned merge. It
// returns the final sizes and the passages of the largest merge.
func settleWithPlanner(t *testing.T, sizes []int64, target int) ([]int64, int64) {
	t.Helper()
	var next uint64
	segs := make([]planSeg, len(sizes))
	for i, n := range sizes {
		next++
		segs[i] = planSeg{id: next, size: n}
	}
	var largest int64
	for round := 0; round < settleRounds; round++ {
		cur := make([]int64, len(segs))
		in := make([]mergeplan.Segment, len(segs))
		for i, s := range segs {
			cur[i], in[i] = s.size, s
		}
		opts := settleStep(cur, target)
		if opts == nil {
			break
		}
		if err := mergeplan.ValidateMergePlannerOptions(opts); err != nil {
			t.Fatalf("round %d: invalid options: %v", round, err)
		}
		plan, err := mergeplan.Plan(in, opts)
		if err != nil {
			t.Fatal(err)
		}
		if plan == nil || len(plan.Tasks) != 1 {
			t.Fatalf("round %d on %v: want exactly one merge, got %+v", round, cur, plan)
		}
		var sum int64
		segs, sum = applyMerge(segs, &next, plan.Tasks[0])
		largest = max(largest, sum)
	}
	out := make([]int64, len(segs))
	for i, s := range segs {
		out[i] = s.size
	}
	slices.Sort(out)
	return out, largest
}

// applyMerge replaces the segments of task by one new segment (numbered
// next, incremented) holding their passages, which it returns.
func applyMerge(segs []planSeg, next *uint64, task *mergeplan.MergeTask) ([]planSeg, int64) {
	merged := map[uint64]bool{}
	var sum int64
	for _, s := range task.Segments {
		merged[s.Id()] = true
		sum += s.LiveSize()
	}
	segs = slices.DeleteFunc(segs, func(s planSeg) bool { return merged[s.id] })
	*next++
	return append(segs, planSeg{id: *next, size: sum}), sum
}

func repeatSizes(n int, size int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = size
	}
	return out
}

// TestSettleMergesAShareAtATime: against Bleve's planner, a settle ends at
// its target and no merge takes much more than an even share of the
// passages (what a merge reads is what the process maps).
func TestSettleMergesAShareAtATime(t *testing.T) {
	tiers := func(parts ...[]int64) []int64 { return slices.Concat(parts...) }
	cases := []struct {
		name   string
		sizes  []int64
		target int
	}{
		// What Bleve's background merger leaves of a million passages:
		// tiers of 2,000, 20,000 and 180,000.
		{"1M to 3", tiers(repeatSizes(5, 180_000), repeatSizes(9, 20_000), repeatSizes(7, 2_000)), 3},
		{"1M to 2", tiers(repeatSizes(5, 180_000), repeatSizes(9, 20_000), repeatSizes(7, 2_000)), 2},
		{"batches to 2", repeatSizes(30, 50), 2},
		{"batches to 1", repeatSizes(30, 50), 1},
		{"uneven", []int64{900, 5, 300, 7, 280, 3, 1, 250}, 3},
		{"settled already", []int64{500, 480}, 2},
		// What the background merger leaves of a million passages when it
		// stops at full segments: the stragglers become one segment.
		{"1M to 5", tiers(repeatSizes(4, 200_000), repeatSizes(9, 20_000), repeatSizes(7, 2_000)), 5},
		{"1M to 6, merger done", tiers(repeatSizes(5, 200_000), repeatSizes(3, 2_000)), 6},
		{"1M to 5, more full than target", tiers(repeatSizes(5, 200_000), repeatSizes(4, 2_000)), 4},
		// Full segments of 100,000 passages, and the batches of the last
		// one (SettleMaxDocs 100,000, batches of 2,000).
		{"1M to 10", tiers(repeatSizes(9, 100_000), repeatSizes(50, 2_000)), 10},
		// Uneven full segments (batches cut short by their bytes or at
		// the end of a file): those under three quarters of a share merge
		// with the stragglers.
		{"1M to 9, uneven", tiers(repeatSizes(6, 116_000), repeatSizes(2, 64_000), repeatSizes(9, 20_000), repeatSizes(6, 2_000)), 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var total int64
			for _, n := range c.sizes {
				total += n
			}
			final, largest := settleWithPlanner(t, c.sizes, c.target)
			// Full segments (three quarters of a share) stay as they are;
			// the others become at most what the target leaves them.
			share := (total + int64(c.target) - 1) / int64(c.target)
			full := 0
			for _, n := range c.sizes {
				if n >= share*3/4 {
					full++
				}
			}
			if want := max(c.target, full+1); len(final) > want {
				t.Errorf("settled to %d segments %v, want at most %d", len(final), final, want)
			}
			var sum int64
			for _, n := range final {
				sum += n
			}
			if sum != total {
				t.Fatalf("passages %d after, %d before", sum, total)
			}
			if largest > share+share/2 {
				t.Errorf("a merge took %d passages, more than 1.5 shares of %d", largest, share)
			}
			t.Log(fmt.Sprint(final), "largest merge", largest)
		})
	}
}

// TestBackgroundMergesStopAtSettleMaxDocs: Bleve's planner, with the
// writer's options parsed as Bleve parses them, fed a million passages in
// batches of BatchPassages, merges each passage once, into full segments
// of SettleMaxDocs passages: never more at once (what a merge reads is what
// the process maps), never a segment a merge made.
func TestBackgroundMergesStopAtSettleMaxDocs(t *testing.T) {
	opts := mergeplan.DefaultMergePlanOptions
	raw, err := json.Marshal(backgroundMergeOptions(WriterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &opts); err != nil {
		t.Fatal(err)
	}
	if err := mergeplan.ValidateMergePlannerOptions(&opts); err != nil {
		t.Fatal(err)
	}
	var segs []planSeg
	var next uint64
	var largest int64
	madeByMerge := map[uint64]bool{}
	for added := 0; added < 1_000_000; added += DefaultBatchPassages {
		next++
		segs = append(segs, planSeg{id: next, size: int64(DefaultBatchPassages)})
		in := make([]mergeplan.Segment, len(segs))
		for i, s := range segs {
			in[i] = s
		}
		plan, err := mergeplan.Plan(in, &opts)
		if err != nil {
			t.Fatal(err)
		}
		if plan == nil {
			continue
		}
		for _, task := range plan.Tasks {
			for _, s := range task.Segments {
				if madeByMerge[s.Id()] {
					t.Fatalf("after %d passages: a merge takes a merged segment of %d passages again", added, s.LiveSize())
				}
			}
			var sum int64
			segs, sum = applyMerge(segs, &next, task)
			largest = max(largest, sum)
			madeByMerge[next] = true
		}
	}
	if largest > int64(DefaultSettleMaxDocs) {
		t.Errorf("a background merge took %d passages, SettleMaxDocs is %d", largest, DefaultSettleMaxDocs)
	}
	// All but the last full segment's worth of batches are merged: the
	// rest is what the settle merges.
	var full int
	for _, s := range segs {
		if s.size == int64(DefaultSettleMaxDocs) {
			full++
		}
	}
	if want := 1_000_000/DefaultSettleMaxDocs - 1; full < want || len(segs) > full+2*DefaultSettleMaxDocs/DefaultBatchPassages {
		t.Errorf("%d segments, %d full of %d passages, want at least %d full (largest merge %d)", len(segs), full, DefaultSettleMaxDocs, want, largest)
	}
	t.Logf("%d segments, %d full, largest merge %d", len(segs), full, largest)
}

func TestSettleTarget(t *testing.T) {
	o := WriterOptions{SettleSegments: 2, SettleMaxDocs: 100_000}
	for docs, want := range map[uint64]int{0: 2, 1000: 2, 200_000: 2, 200_001: 3, 1_000_000: 10, 2_000_000: 20} {
		if got := o.settleTarget(docs); got != want {
			t.Errorf("settleTarget(%d) = %d, want %d", docs, got, want)
		}
	}
	o.SettleSegments = -1
	if got := o.settleTarget(1_000_000); got != 0 {
		t.Errorf("with settling off: %d", got)
	}
}

// TestIngestMemoryLimit: an ingest lowers Go's memory limit while it runs,
// never raises a lower one, raises the GC percent with it unless GOGC is
// set, and restores both.
func TestIngestMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	prevPercent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prevPercent)
	o := WriterOptions{IngestMemoryLimit: 300 << 20, IngestGCPercent: 250}
	gcPercent := func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	gogc, gogcSet := os.LookupEnv("GOGC")
	os.Unsetenv("GOGC")
	if gogcSet {
		defer os.Setenv("GOGC", gogc)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	restore := limitIngestMemory(o)
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("during the ingest: limit %d, want %d", got, 300<<20)
	}
	if got := gcPercent(); got != 250 {
		t.Errorf("during the ingest: GC percent %d, want 250", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after: limit %d, want it restored", got)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("after: GC percent %d, want it restored", got)
	}

	debug.SetMemoryLimit(100 << 20)
	restore = limitIngestMemory(o)
	if got := debug.SetMemoryLimit(-1); got != 100<<20 {
		t.Errorf("a lower limit was raised to %d", got)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("without the limit: GC percent %d, want it untouched", got)
	}
	restore()

	// A GOGC the user set is theirs.
	t.Setenv("GOGC", "100")
	debug.SetMemoryLimit(math.MaxInt64)
	restore = limitIngestMemory(o)
	if got := gcPercent(); got != 100 {
		t.Errorf("with GOGC set: GC percent %d, want it untouched", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("with GOGC set: limit %d, want %d", got, 300<<20)
	}
	restore()
}
