package local

import (
	"os"
	"runtime/debug"
)

// IngestMemoryLimit is the soft limit on Go's memory while an ingest reads
// and analyses (runtime/debug.SetMemoryLimit; 0 leaves the limit and the
// collector alone). What is live stays near 110–130 MiB at a million
// passages (the batches being analysed and built, the stem caches); with
// Bleve's background merges mapping up to ~210 MiB of index at the same
// time (see SettleMaxDocs), the limit keeps the resident set under ~550
// MiB. It is lifted when the ingest ends.
var IngestMemoryLimit int64 = 320 << 20

// IngestGCPercent is Go's GC percent while IngestMemoryLimit holds, when
// GOGC is not set. The limit bounds the heap whatever the percent; a
// higher percent lets the collector use the room under it instead of
// running each time the heap doubles (at a million passages: 183 -> 171 s
// of CPU in all, the same peak).
var IngestGCPercent = 200

// limitIngestMemory applies IngestMemoryLimit, never raising a lower limit
// already set (GOMEMLIMIT), and with it IngestGCPercent unless GOGC is set;
// it returns what restores both.
func limitIngestMemory() (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if IngestMemoryLimit <= 0 || prev <= IngestMemoryLimit {
		return func() {}
	}
	debug.SetMemoryLimit(IngestMemoryLimit)
	if _, set := os.LookupEnv("GOGC"); set || IngestGCPercent <= 0 {
		return func() { debug.SetMemoryLimit(prev) }
	}
	prevPercent := debug.SetGCPercent(IngestGCPercent)
	return func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prev)
	}
}
