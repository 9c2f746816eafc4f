package retrieval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/prefrag/prefrag/sources/local"
)

// Dataset names, in the order they run.
var DatasetNames = []string{"vaswani", "cranfield", "hotpotqa-ircot", "migres-hotpotqa", "migres-musique", "migres-2wiki"}

// Defaults of Config.
const (
	DefaultLatencySamples = 1000
	DefaultLargeSize      = 100_000
	// Quality depths: collections are scored down to recall@100, pools to
	// recall@10.
	collectionDepth = 100
	poolDepth       = 10
	// latencyK is the depth of the timed queries.
	latencyK = 10
	// largeWarmQueries is how many queries warm an index that had no
	// quality pass (the --large corpus) before the timed ones.
	largeWarmQueries = 200
)

// Config says what to run.
type Config struct {
	// DataDir is the shared data folder (holding ir/ and multihop/).
	DataDir string
	// WorkDir receives the generated .jsonl files and the indexes.
	WorkDir string
	// Datasets to run, by name; empty runs all of DatasetNames.
	Datasets []string
	// MaxDocs > 0 keeps only the first MaxDocs documents of each collection
	// (and their judgements) and pools only as many questions as fit in
	// MaxDocs paragraphs: a quick slice for tests.
	MaxDocs int
	// Large adds the speed run on a synthetic corpus of LargeSize passages.
	Large     bool
	LargeSize int
	// LatencySamples is the minimum number of timed queries per engine and
	// dataset; the query set is repeated until it is reached.
	LatencySamples int
	// Seed drives the synthetic corpus.
	Seed uint64
	// Embedder, when set (an embedding model of the user's server), adds
	// the hybrid engine: each dataset indexed and embedded, searched
	// hybrid and dense (engines.go).
	Embedder local.Embedder
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Report is what a run measured.
type Report struct {
	DataDir string `json:"data_dir"`
	// FTS5 is false when the binary lacks the reference implementation.
	FTS5 bool   `json:"fts5"`
	Env  string `json:"env"`
	// Load is the 1-minute load average at the start and at the end of the
	// run (Linux), since other processes on the machine skew the timings.
	Load     string       `json:"load,omitempty"`
	Quality  []QualityRow `json:"quality"`
	Speed    []SpeedRow   `json:"speed"`
	Notes    []string     `json:"notes,omitempty"`
	Duration float64      `json:"duration_s"`
}

// Metric names of quality rows.
const (
	MetricNDCG10       = "nDCG@10"
	MetricNDCG10Graded = "nDCG@10 graded"
	MetricRecall100    = "recall@100"
	MetricRecall5      = "recall@5"
	MetricRecall10     = "recall@10"
)

// QualityRow is one system's quality on one dataset.
type QualityRow struct {
	Dataset string             `json:"dataset"`
	Kind    string             `json:"kind"`
	System  string             `json:"system"`
	Docs    int                `json:"docs"`
	Queries int                `json:"queries"`
	Metrics map[string]float64 `json:"metrics"`
}

// SpeedRow is one engine's build and query speed on one dataset.
type SpeedRow struct {
	Dataset      string  `json:"dataset"`
	System       string  `json:"system"`
	Docs         int     `json:"docs"`
	Passages     int     `json:"passages"`
	AvgWords     float64 `json:"avg_words"`
	BuildSeconds float64 `json:"build_s"`
	DocsPerSec   float64 `json:"docs_per_s"`
	SizeBytes    int64   `json:"size_bytes"`
	Samples      int     `json:"query_samples"`
	P50ms        float64 `json:"p50_ms"`
	P99ms        float64 `json:"p99_ms"`
}

// ErrUnknownDataset is matched by a Config naming a dataset that does not
// exist.
var ErrUnknownDataset = errors.New("unknown dataset")

// Run loads the datasets, indexes each with every available engine, and
// measures quality and speed.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	started := time.Now()
	if cfg.LatencySamples <= 0 {
		cfg.LatencySamples = DefaultLatencySamples
	}
	if cfg.LargeSize <= 0 {
		cfg.LargeSize = DefaultLargeSize
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	names := cfg.Datasets
	if len(names) == 0 {
		names = DatasetNames
	}
	for _, n := range names {
		if !slices.Contains(DatasetNames, n) {
			return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownDataset, n, strings.Join(DatasetNames, ", "))
		}
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return nil, err
	}
	rep := &Report{DataDir: cfg.DataDir, FTS5: fts5Available, Env: environment()}
	loadAtStart := loadAverage()
	if !fts5Available {
		rep.Notes = append(rep.Notes, ErrFTS5NotBuilt.Error())
	}
	builders := availableBuilders(cfg.Embedder)
	var loaded []*Dataset
	for _, name := range names {
		ds, err := loadDataset(cfg.DataDir, name, cfg.MaxDocs)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		for _, n := range ds.Notes {
			rep.Notes = append(rep.Notes, ds.Name+": "+n)
		}
		fmt.Fprintf(cfg.Log, "%s: %d documents, %d queries\n", ds.Name, len(ds.Docs), len(ds.Queries))
		for _, eb := range builders {
			if err := measure(ctx, cfg, rep, eb.build, ds, true); err != nil {
				return nil, err
			}
		}
		loaded = append(loaded, ds)
	}
	if cfg.Large {
		large := largeDataset(loaded, cfg.LargeSize, cfg.Seed)
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %d passages of 120–180 words synthesised from %s (seed %d): each starts with a real document (title and words) and continues with the words of other random real documents; queries: the real queries of those datasets, timed only (no judgements)",
			large.Name, len(large.Docs), strings.Join(names, ", "), cfg.Seed))
		fmt.Fprintf(cfg.Log, "%s: %d passages, %d queries\n", large.Name, len(large.Docs), len(large.Queries))
		for _, eb := range builders {
			if err := measure(ctx, cfg, rep, eb.build, large, false); err != nil {
				return nil, err
			}
		}
	}
	rep.Duration = time.Since(started).Seconds()
	if loadAtStart != "" {
		rep.Load = fmt.Sprintf("load average %s at start, %s at end", loadAtStart, loadAverage())
	}
	return rep, nil
}

// engineBuilder is an engine's name and its builder.
type engineBuilder struct {
	name  string
	build builder
}

// availableBuilders are Bleve, then FTS5 when it is built in.
func availableBuilders(e local.Embedder) []engineBuilder {
	out := []engineBuilder{{EngineBleve, buildBleve}}
	if e != nil {
		out = append(out, engineBuilder{EngineHybrid, buildHybrid(e)})
	}
	if fts5Available {
		out = append(out, engineBuilder{EngineFTS5, buildFTS5})
	}
	return out
}

func loadDataset(dataDir, name string, maxDocs int) (*Dataset, error) {
	switch name {
	case "vaswani":
		ds, err := LoadVaswani(dataDir)
		if err == nil {
			ds.FirstDocs(maxDocs)
		}
		return ds, err
	case "cranfield":
		ds, err := LoadCranfield(dataDir)
		if err == nil {
			ds.FirstDocs(maxDocs)
		}
		return ds, err
	}
	for _, f := range multihopFiles {
		if f.name == name {
			return LoadPool(dataDir, f.name, f.path, maxDocs)
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownDataset, name)
}

// measure indexes ds with one engine, scores every ranker (when quality is
// set) and times the default ranker. The quality pass warms the index; without
// it, the first largeWarmQueries queries do.
func measure(ctx context.Context, cfg Config, rep *Report, build builder, ds *Dataset, quality bool) error {
	b, err := build(ctx, cfg.WorkDir, ds, quality)
	if err != nil {
		return err
	}
	defer b.close()
	fmt.Fprintf(cfg.Log, "  %s: indexed %d passages in %.2fs\n", b.engine, b.passages, b.duration.Seconds())
	if quality {
		for _, r := range b.rankers {
			row, err := score(ctx, r, ds)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", r.system, ds.Name, err)
			}
			rep.Quality = append(rep.Quality, row)
		}
	} else if err := warm(ctx, b.rankers[0], ds.Queries[:min(len(ds.Queries), largeWarmQueries)]); err != nil {
		return err
	}
	samples, err := latencies(ctx, b.rankers[0], ds.Queries, cfg.LatencySamples)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", b.engine, ds.Name, err)
	}
	row := SpeedRow{
		Dataset: ds.Name, System: b.engine, Docs: len(ds.Docs), Passages: b.passages,
		AvgWords: ds.AvgWords(), BuildSeconds: b.duration.Seconds(), SizeBytes: b.size,
		Samples: len(samples), P50ms: ms(Percentile(samples, 50)), P99ms: ms(Percentile(samples, 99)),
	}
	if b.duration > 0 {
		row.DocsPerSec = float64(len(ds.Docs)) / b.duration.Seconds()
	}
	rep.Speed = append(rep.Speed, row)
	fmt.Fprintf(cfg.Log, "  %s: %d timed queries, p50 %.3f ms, p99 %.3f ms\n", b.engine, row.Samples, row.P50ms, row.P99ms)
	return nil
}

// score runs every query of ds at the dataset's depth and averages the
// metrics over the queries.
func score(ctx context.Context, r ranker, ds *Dataset) (QualityRow, error) {
	depth := collectionDepth
	if ds.Kind == Pool {
		depth = poolDepth
	}
	per := make(map[string][]float64)
	for _, q := range ds.Queries {
		if err := ctx.Err(); err != nil {
			return QualityRow{}, err
		}
		ranked, err := r.search(ctx, q.Text, depth)
		if err != nil {
			return QualityRow{}, err
		}
		if ds.Kind == Pool {
			per[MetricRecall5] = append(per[MetricRecall5], Recall(ranked, q.Rel, 5))
			per[MetricRecall10] = append(per[MetricRecall10], Recall(ranked, q.Rel, 10))
			continue
		}
		per[MetricNDCG10] = append(per[MetricNDCG10], NDCG(ranked, Binary(q.Rel), 10))
		if ds.Graded {
			per[MetricNDCG10Graded] = append(per[MetricNDCG10Graded], NDCG(ranked, q.Rel, 10))
		}
		per[MetricRecall100] = append(per[MetricRecall100], Recall(ranked, q.Rel, 100))
	}
	row := QualityRow{Dataset: ds.Name, Kind: ds.Kind.String(), System: r.system, Docs: len(ds.Docs), Queries: len(ds.Queries), Metrics: make(map[string]float64)}
	for m, xs := range per {
		row.Metrics[m] = mean(xs)
	}
	return row, nil
}

// warm runs every query once, untimed.
func warm(ctx context.Context, r ranker, qs []Query) error {
	for _, q := range qs {
		if _, err := r.search(ctx, q.Text, latencyK); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// latencies times top-10 searches, repeating the query set until at least
// n searches ran.
func latencies(ctx context.Context, r ranker, qs []Query, n int) ([]time.Duration, error) {
	if len(qs) == 0 {
		return nil, nil
	}
	out := make([]time.Duration, 0, n+len(qs))
	for len(out) < n {
		for _, q := range qs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			start := time.Now()
			if _, err := r.search(ctx, q.Text, latencyK); err != nil {
				return nil, err
			}
			out = append(out, time.Since(start))
		}
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// loadAverage is the 1-minute load average, "" where /proc/loadavg is
// missing.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return ""
}

func environment() string {
	return fmt.Sprintf("%s %s/%s, %d CPUs, GOMAXPROCS %d", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))
}
