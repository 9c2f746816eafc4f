package local

// Defaults of WriterOptions.
const (
	// DefaultBatchPassages and DefaultBatchBytes: a batch is flushed (and
	// made durable) when either is reached.
	DefaultBatchPassages = 2000
	DefaultBatchBytes    = 16 << 20
	// DefaultSettleSegments is the number of index segments an ingest
	// leaves behind: at its end the segments are merged down to it, so that
	// a corpus is built the same way every time (Bleve's background merger
	// stops wherever it is when the writer closes, leaving a count that
	// varies from build to build, and search time with it). Two keeps one
	// segment per core for searches. A corpus of more than
	// DefaultSettleMaxDocs passages settles to more segments (see
	// WriterOptions.settleTarget).
	DefaultSettleSegments = 2
	// DefaultSettleMaxDocs is the passages of a full segment. While an
	// ingest runs, Bleve's background merger merges batches into segments
	// of that many passages and no further (see backgroundMergeOptions); a
	// corpus of more than SettleSegments times as many passages settles to
	// one segment per SettleMaxDocs passages, leaving full segments as they
	// are. A merge reads every page of the segments it merges through
	// memory maps, which count as the process's resident memory until the
	// merge ends (~1 KB per passage with stored text): merges of 100,000
	// passages keep that near ~200 MiB at a million passages, where merges
	// of up to 200,000 took ~290 MiB. Search time barely depends on the
	// count (9 segments or 5 at a million passages: the same p50 on 2
	// cores, see docs/benchmarks.md).
	DefaultSettleMaxDocs = 100_000
	// DefaultIngestMemoryLimit is the soft limit on Go's memory while an
	// ingest reads and analyses (runtime/debug.SetMemoryLimit). What is
	// live stays near 110–130 MiB at a million passages (the batches being
	// analysed and built, the stem caches); with Bleve's background merges
	// mapping up to ~210 MiB of index at the same time, the limit keeps the
	// resident set under ~550 MiB. It is lifted when the ingest ends.
	DefaultIngestMemoryLimit = 320 << 20
	// DefaultIngestGCPercent is Go's GC percent while the memory limit
	// holds, when GOGC is not set. The limit bounds the heap whatever the
	// percent; a higher percent lets the collector use the room under it
	// instead of running each time the heap doubles (at a million passages:
	// 183 -> 171 s of CPU in all, the same peak).
	DefaultIngestGCPercent = 200
)

// WriterOptions tune how a Writer batches, merges and settles, and what
// memory an ingest may use. A zero field takes its default (the Default…
// constants); a negative one turns its feature off where the field says so.
type WriterOptions struct {
	// BatchPassages and BatchBytes bound a batch.
	BatchPassages int
	BatchBytes    int
	// SettleSegments: the segments an ingest settles to; negative leaves
	// the segments as they are.
	SettleSegments int
	// SettleMaxDocs: the passages of a full segment; negative: no cap.
	SettleMaxDocs int
	// IngestMemoryLimit: the soft memory limit while an ingest runs;
	// negative leaves the limit and the collector alone.
	IngestMemoryLimit int64
	// IngestGCPercent: Go's GC percent under the limit; negative leaves it.
	IngestGCPercent int
	// IndexConfig is merged into the index library's runtime configuration
	// of the writer (its merge planner's options, a segment version), over
	// what the writer sets.
	IndexConfig map[string]interface{}
}

// resolved returns o with every zero field set to its default.
func (o WriterOptions) resolved() WriterOptions {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.BatchPassages, DefaultBatchPassages)
	def(&o.BatchBytes, DefaultBatchBytes)
	def(&o.SettleSegments, DefaultSettleSegments)
	def(&o.SettleMaxDocs, DefaultSettleMaxDocs)
	def(&o.IngestGCPercent, DefaultIngestGCPercent)
	if o.IngestMemoryLimit == 0 {
		o.IngestMemoryLimit = DefaultIngestMemoryLimit
	}
	return o
}

// settleTarget is the number of segments a corpus of docs passages settles
// to; 0 means no settle.
func (o WriterOptions) settleTarget(docs uint64) int {
	o = o.resolved()
	if o.SettleSegments <= 0 {
		return 0
	}
	n := o.SettleSegments
	if o.SettleMaxDocs > 0 {
		n = max(n, int((docs+uint64(o.SettleMaxDocs)-1)/uint64(o.SettleMaxDocs)))
	}
	return n
}
