package local

import (
	"os"
	"runtime/debug"
)

// limitIngestMemory applies o's IngestMemoryLimit, never raising a lower
// limit already set (GOMEMLIMIT), and with it o's IngestGCPercent unless
// GOGC is set; it returns what restores both.
func limitIngestMemory(o WriterOptions) (restore func()) {
	o = o.resolved()
	prev := debug.SetMemoryLimit(-1)
	if o.IngestMemoryLimit <= 0 || prev <= o.IngestMemoryLimit {
		return func() {}
	}
	debug.SetMemoryLimit(o.IngestMemoryLimit)
	if _, set := os.LookupEnv("GOGC"); set || o.IngestGCPercent <= 0 {
		return func() { debug.SetMemoryLimit(prev) }
	}
	prevPercent := debug.SetGCPercent(o.IngestGCPercent)
	return func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prev)
	}
}
