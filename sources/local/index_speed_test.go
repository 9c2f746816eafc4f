package local

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
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
	var wo WriterOptions
	envInt("PREFRAG_SETTLE", &wo.SettleSegments, 1)
	envInt("PREFRAG_SETTLE_MAX", &wo.SettleMaxDocs, 1)
	envInt("PREFRAG_BATCH", &wo.BatchPassages, 1)
	envInt("PREFRAG_BATCH_MB", &wo.BatchBytes, 1<<20)
	if n, err := strconv.Atoi(os.Getenv("PREFRAG_SEGVER")); err == nil {
		wo.IndexConfig = map[string]interface{}{"forceSegmentType": "zap", "forceSegmentVersion": n}
	}
	envInt("PREFRAG_MEMLIMIT_MB", &wo.IngestMemoryLimit, 1<<20)
	if o := os.Getenv("PREFRAG_MERGE_OPTS"); o != "" {
		// Bleve's merge plan options as JSON, e.g. {"SegmentsPerMergeTask":100}.
		var opts map[string]interface{}
		if err := json.Unmarshal([]byte(o), &opts); err != nil {
			t.Fatal(err)
		}
		if wo.IndexConfig == nil {
			wo.IndexConfig = map[string]interface{}{}
		}
		wo.IndexConfig["scorchMergePlanOptions"] = opts
	}
	if f := os.Getenv("PREFRAG_RSS_TRACE"); f != "" {
		stop := traceRSS(t, f)
		defer stop()
	}
	if f := os.Getenv("PREFRAG_HEAP_PROFILE"); f != "" {
		// A heap profile a minute in, in the middle of a large ingest.
		timer := time.AfterFunc(time.Minute, func() {
			out, err := os.Create(f)
			if err == nil {
				_ = pprof.WriteHeapProfile(out)
				out.Close()
			}
		})
		defer timer.Stop()
	}
	start := time.Now()
	rep, err := Index(context.Background(), dir, "speed", []string{src}, IndexOptions{Writer: wo})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("report: indexed %d unchanged %d removed %d failed %v", rep.Indexed, rep.Unchanged, rep.Removed, rep.Failed)
	t.Logf("%d passages in %v: %.0f/s, %d bytes, %d segments after a merge of %v", rep.Passages, took, float64(rep.Passages)/took.Seconds(), rep.Stats.SizeBytes, rep.Segments, rep.Merge)
}

// envInt sets *v to the integer in the environment variable name times
// unit; an unset or unreadable one leaves it.
func envInt[T int | int64](name string, v *T, unit T) {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		return
	}
	*v = T(n) * unit
	if n == 0 {
		*v = -1 // 0 in the environment turns the feature off
	}
}

// traceRSS writes, every second, the seconds since start and this
// process's RssAnon and RssFile in MiB to file.
func traceRSS(t *testing.T, file string) func() {
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			b, _ := os.ReadFile("/proc/self/status")
			var anon, file int
			for _, line := range strings.Split(string(b), "\n") {
				f := strings.Fields(line)
				if len(f) >= 2 && f[0] == "RssAnon:" {
					anon, _ = strconv.Atoi(f[1])
				}
				if len(f) >= 2 && f[0] == "RssFile:" {
					file, _ = strconv.Atoi(f[1])
				}
			}
			fmt.Fprintf(out, "%.0f %d %d\n", time.Since(start).Seconds(), anon>>10, file>>10)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished; out.Close() }
}
