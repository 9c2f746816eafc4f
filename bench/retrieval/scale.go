package retrieval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Defaults of ScaleConfig.
const (
	DefaultScaleSamples = 400
)

// ScaleConfig says what `prefrag bench retrieval --scale N` runs.
type ScaleConfig struct {
	// DataDir is the shared data folder (holding multihop/).
	DataDir string
	// WorkDir receives the corpus file and both indexes.
	WorkDir string
	// Passages is the corpus size.
	Passages int
	Seed     uint64
	// Samples is the number of timed queries per engine and GOMAXPROCS.
	Samples int
	// Rounds is how many times each engine builds the corpus, the engines
	// taking turns; a row reports its fastest build (and its highest
	// peak RSS). 0 means 1.
	Rounds int
	// Exe and ChildArgs start a child: Exe ChildArgs... build|query flags.
	// ChildArgs is normally ["bench", ChildCommand].
	Exe       string
	ChildArgs []string
	// Dims, when positive, adds the vector leg: the prefrag corpus
	// embedded with synthetic vectors of Dims dimensions, recall@10 and
	// dense and hybrid queries (scale_vectors.go); Rerank is the vector
	// leg's candidates rescored (0: the default).
	Dims, Rerank int
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// ScaleRow is one engine's build and query measures.
type ScaleRow struct {
	System       string  `json:"system"`
	Passages     int     `json:"passages"`
	BuildSeconds float64 `json:"build_s"`
	// BuildsSeconds are the durations of every build, in order (BuildSeconds
	// is the fastest; the rate and CPU are that build's).
	BuildsSeconds  []float64 `json:"builds_s,omitempty"`
	PassagesPerSec float64   `json:"passages_per_s"`
	// MergeSeconds is the part of BuildSeconds spent merging segments at
	// the end (prefrag's settle).
	MergeSeconds float64 `json:"merge_s"`
	// BuildCPU is the build process's CPU time over its wall time: 2 means
	// both cores busy.
	BuildCPU    float64 `json:"build_cpu"`
	BuildRSSMiB float64 `json:"build_peak_rss_mib"`
	// The build's peak anonymous memory (the heap) and peak file-backed
	// memory (index files mapped and read), sampled; 0 where unknown.
	BuildAnonMiB float64 `json:"build_peak_anon_mib,omitempty"`
	BuildFileMiB float64 `json:"build_peak_file_mib,omitempty"`
	SizeBytes    int64   `json:"size_bytes"`
	Segments     int     `json:"segments"`
	ColdMs       float64 `json:"cold_open_first_query_ms"`
	Samples      int     `json:"query_samples"`
	P50ms1       float64 `json:"p50_ms_gomaxprocs1"`
	P99ms1       float64 `json:"p99_ms_gomaxprocs1"`
	P50ms2       float64 `json:"p50_ms_gomaxprocs2"`
	P99ms2       float64 `json:"p99_ms_gomaxprocs2"`
	QueryRSSMiB  float64 `json:"query_peak_rss_mib"`
	// The query session's peak anonymous memory (the heap, which the
	// kernel cannot take back) and peak file-backed memory (the index
	// files mapped and read, page cache it can drop), sampled; 0 where
	// unknown. QueryHeapMiB is the Go heap's live objects after the last
	// query: what the open index keeps.
	QueryAnonMiB float64 `json:"query_peak_anon_mib,omitempty"`
	QueryFileMiB float64 `json:"query_peak_file_mib,omitempty"`
	QueryHeapMiB float64 `json:"query_live_heap_mib,omitempty"`
	QueryProcCPU float64 `json:"query_cpu_s"`
}

// ScaleReport is what a scale run measured.
type ScaleReport struct {
	DataDir string `json:"data_dir"`
	Env     string `json:"env"`
	Load    string `json:"load,omitempty"`
	// Corpus: passages, of which real paragraphs, mean words, file size.
	Passages    int     `json:"passages"`
	Real        int     `json:"real_passages"`
	AvgWords    float64 `json:"avg_words"`
	CorpusBytes int64   `json:"corpus_bytes"`
	Seed        uint64  `json:"seed"`
	Queries     int     `json:"queries"`
	GenerateS   float64 `json:"generate_s"`
	// Rows: prefrag first, then stock Bleve.
	Rows []ScaleRow `json:"rows"`
	// BuildRatio is prefrag's build rate over stock Bleve's.
	BuildRatio float64 `json:"build_ratio"`
	Duration   float64 `json:"duration_s"`
	// Vectors is the vector leg (--dims).
	Vectors *ScaleVectors `json:"vectors,omitempty"`
}

// RunScale generates the corpus, builds it with prefrag and with stock
// Bleve (each in a child process) and times queries on both (each in a
// fresh child process).
func RunScale(ctx context.Context, cfg ScaleConfig) (*ScaleReport, error) {
	started := time.Now()
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Samples <= 0 {
		cfg.Samples = DefaultScaleSamples
	}
	if cfg.Passages <= 0 {
		return nil, errors.New("scale: the corpus needs at least one passage")
	}
	rep := &ScaleReport{DataDir: cfg.DataDir, Env: environment(), Seed: cfg.Seed}
	loadAtStart := loadAverage()
	real, queries, err := scaleSources(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	src := filepath.Join(cfg.WorkDir, "corpus.jsonl")
	qfile := filepath.Join(cfg.WorkDir, "queries.txt")
	if err := writeQueries(qfile, queries); err != nil {
		return nil, err
	}
	rep.Queries = len(queries)
	fmt.Fprintf(cfg.Log, "generating %d passages into %s\n", cfg.Passages, src)
	st, err := writeScaleCorpus(ctx, src, real, cfg.Passages, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("generating the corpus: %w", err)
	}
	rep.GenerateS = time.Since(started).Seconds()
	rep.Passages, rep.Real, rep.CorpusBytes = st.Passages, st.Real, st.SizeBytes
	if st.Passages > 0 {
		rep.AvgWords = float64(st.Words) / float64(st.Passages)
	}
	rounds := max(cfg.Rounds, 1)
	rep.Rows = []ScaleRow{{System: ScalePrefrag}, {System: ScaleStock}}
	for round := 1; round <= rounds; round++ {
		for i := range rep.Rows {
			if err := buildScaleRow(ctx, cfg, &rep.Rows[i], src, round, rounds); err != nil {
				return nil, err
			}
		}
	}
	for i := range rep.Rows {
		if err := timeScaleQueries(ctx, cfg, &rep.Rows[i], qfile); err != nil {
			return nil, err
		}
	}
	if s := rep.Rows[1].PassagesPerSec; s > 0 {
		rep.BuildRatio = rep.Rows[0].PassagesPerSec / s
	}
	if cfg.Dims > 0 {
		if rep.Vectors, err = runScaleVectors(ctx, cfg, rep.Rows[0], src, qfile); err != nil {
			return nil, err
		}
	}
	rep.Duration = time.Since(started).Seconds()
	if loadAtStart != "" {
		rep.Load = fmt.Sprintf("load average %s at start, %s at end", loadAtStart, loadAverage())
	}
	return rep, nil
}

// timeScaleQueries times the queries of qfile on row's index, in a fresh
// child process, and keeps its latencies and memory in row.
func timeScaleQueries(ctx context.Context, cfg ScaleConfig, row *ScaleRow, qfile string) error {
	engine := row.System
	var q queryResult
	fmt.Fprintf(cfg.Log, "%s: timing queries\n", engine)
	// "Cold" is a fresh process over files in the page cache. The
	// kernel may have reclaimed the pages of the index built first
	// while the other was built (proactive reclaim of idle pages):
	// each index is read once before its queries, so that both start
	// alike.
	if _, err := readAll(filepath.Join(cfg.WorkDir, engine)); err != nil {
		return fmt.Errorf("%s queries: %w", engine, err)
	}
	usage, err := runChild(ctx, cfg, &q, "query", "--engine", engine, "--dir", filepath.Join(cfg.WorkDir, engine),
		"--queries", qfile, "--samples", strconv.Itoa(cfg.Samples))
	if err != nil {
		return fmt.Errorf("%s queries: %w", engine, err)
	}
	row.ColdMs, row.Samples = q.ColdMs, q.Samples
	row.P50ms1, row.P99ms1 = q.Latency[1][0], q.Latency[1][1]
	row.P50ms2, row.P99ms2 = q.Latency[2][0], q.Latency[2][1]
	row.QueryRSSMiB, row.QueryProcCPU = mib(usage.rss), usage.cpu
	row.QueryAnonMiB, row.QueryFileMiB, row.QueryHeapMiB = mib(q.AnonRSS), mib(q.FileRSS), mib(int64(q.HeapBytes))
	fmt.Fprintf(cfg.Log, "%s: cold %.0f ms, p50/p99 %.1f/%.1f ms (GOMAXPROCS 1), %.1f/%.1f ms (2), peak RSS %.0f MiB (anon %.0f, files %.0f), live heap %.0f MiB\n",
		engine, row.ColdMs, row.P50ms1, row.P99ms1, row.P50ms2, row.P99ms2, row.QueryRSSMiB, row.QueryAnonMiB, row.QueryFileMiB, row.QueryHeapMiB)
	return nil
}

type usage struct {
	rss       int64
	cpu, wall float64
}

// runChild runs one child step and decodes the JSON it prints into out.
func runChild(ctx context.Context, cfg ScaleConfig, out any, args ...string) (usage, error) {
	var u usage
	exe := cfg.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return u, err
		}
	}
	cmd := exec.CommandContext(ctx, exe, append(append([]string(nil), cfg.ChildArgs...), args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	u.wall = time.Since(start).Seconds()
	if err != nil {
		if ctx.Err() != nil {
			return u, ctx.Err()
		}
		return u, fmt.Errorf("%w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	u.rss, u.cpu = childUsage(cmd.ProcessState)
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return u, fmt.Errorf("reading the child's result: %w", err)
	}
	return u, nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// buildScaleRow builds the corpus with row's engine into a fresh folder
// and adds the build to row: its times are the build's when it is the
// fastest so far, its peak RSS the highest of the builds.
func buildScaleRow(ctx context.Context, cfg ScaleConfig, row *ScaleRow, src string, round, rounds int) error {
	engine := row.System
	dir := filepath.Join(cfg.WorkDir, engine)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b buildResult
	of := ""
	if rounds > 1 {
		of = fmt.Sprintf(" (round %d of %d)", round, rounds)
	}
	fmt.Fprintf(cfg.Log, "%s: building%s\n", engine, of)
	usage, err := runChild(ctx, cfg, &b, "build", "--engine", engine, "--src", src, "--dir", dir)
	if err != nil {
		return fmt.Errorf("%s build: %w", engine, err)
	}
	rate, cpu := 0.0, 0.0
	if b.Seconds > 0 {
		rate = float64(b.Passages) / b.Seconds
		cpu = usage.cpu / usage.wall
	}
	if len(row.BuildsSeconds) == 0 || b.Seconds < row.BuildSeconds {
		row.BuildSeconds, row.MergeSeconds, row.PassagesPerSec, row.BuildCPU = b.Seconds, b.MergeS, rate, cpu
	}
	row.BuildsSeconds = append(row.BuildsSeconds, b.Seconds)
	// The index the queries use is the last one built.
	row.Passages, row.SizeBytes, row.Segments = b.Passages, b.Size, b.Segments
	row.BuildRSSMiB = max(row.BuildRSSMiB, mib(usage.rss))
	row.BuildAnonMiB = max(row.BuildAnonMiB, mib(b.AnonRSS))
	row.BuildFileMiB = max(row.BuildFileMiB, mib(b.FileRSS))
	fmt.Fprintf(cfg.Log, "%s: %d passages in %.1fs (%.0f/s, CPU %.2f), peak RSS %.0f MiB (anon %.0f, files %.0f), %d segments\n",
		engine, b.Passages, b.Seconds, rate, cpu, mib(usage.rss), mib(b.AnonRSS), mib(b.FileRSS), b.Segments)
	return nil
}

// readAll reads every file under dir once (which puts it in the page cache)
// and returns the bytes read.
func readAll(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		n, err := io.Copy(io.Discard, f)
		total += n
		return err
	})
	return total, err
}
