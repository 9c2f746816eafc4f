package retrieval

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/sources/local/vector"
)

// The vector leg of the scale benchmark (--dims D): the prefrag corpus is
// embedded with SynthEmbedder by the product's own embedding run (a child
// process, "vectors"), the vector leg's recall@10 is measured against an
// exact scan of every vector ("recall"), and the queries are timed by
// meaning (dense) and fused (hybrid), each in a fresh child, as BM25 is.

// vectorArgs are a query child's search by meaning.
type vectorArgs struct {
	dims   int
	seed   uint64
	mode   string
	rerank int
}

// apply sets a corpus's options for the mode.
func (v vectorArgs) apply(opts *local.Options) {
	if v.mode == "" || v.mode == sources.RetrievalBM25 || v.dims <= 0 {
		return
	}
	opts.Retrieval = v.mode
	opts.Embedder = NewSynthEmbedder(v.dims, v.seed)
	opts.Rerank = v.rerank
}

// vectorsResult is what a vectors child prints.
type vectorsResult struct {
	Vectors  int     `json:"vectors"`
	Seconds  float64 `json:"seconds"`
	Size     int64   `json:"size_bytes"`
	AnonRSS  int64   `json:"anon_rss_bytes,omitempty"`
	FileRSS  int64   `json:"file_rss_bytes,omitempty"`
	Codes    int64   `json:"codes_bytes"`
	Complete bool    `json:"complete"`
}

// childVectors embeds the built corpus (its text index is unchanged, so
// the ingest goes straight to the embedding run).
func childVectors(ctx context.Context, src, dir string, dims int, seed uint64) (*vectorsResult, error) {
	if dims <= 0 {
		return nil, fmt.Errorf("vectors: --dims must be positive")
	}
	mem := startMemSampler()
	start := time.Now()
	rep, err := local.Index(ctx, dir, scaleCorpus, []string{src}, local.IndexOptions{Embed: NewSynthEmbedder(dims, seed)})
	if err != nil {
		return nil, err
	}
	if rep.Vectors == nil {
		return nil, fmt.Errorf("vectors: the run embedded nothing")
	}
	res := &vectorsResult{Vectors: rep.Vectors.Vectors, Seconds: time.Since(start).Seconds(), Complete: rep.Vectors.Complete}
	res.AnonRSS, res.FileRSS = mem.peaks()
	vdir := vector.Dir(filepath.Join(dir, scaleCorpus))
	res.Size = local.DirSize(vdir)
	ix, err := vector.Open(vdir)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	res.Codes = ix.MemoryBytes()
	return res, nil
}

// recallResult is what a recall child prints.
type recallResult struct {
	Queries int     `json:"queries"`
	Recall  float64 `json:"recall_at_10"`
	// Exact is the time of the exact scan, per query.
	ExactMs float64 `json:"exact_ms_per_query"`
}

// recallQueries bounds the queries of the exact scan (it reads every
// vector once for all of them).
const recallQueries = 100

// childRecall measures the vector leg's recall@10 against an exact scan.
func childRecall(dir, queriesFile string, dims int, seed uint64, rerank int) (*recallResult, error) {
	qs, err := readQueries(queriesFile)
	if err != nil {
		return nil, err
	}
	if len(qs) > recallQueries {
		qs = qs[:recallQueries]
	}
	ix, err := vector.Open(vector.Dir(filepath.Join(dir, scaleCorpus)))
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	emb := NewSynthEmbedder(dims, seed)
	vecs := make([][]float32, len(qs))
	for i, q := range qs {
		vecs[i] = emb.Vector(q)
	}
	start := time.Now()
	exact, err := ix.Exact(vecs, latencyK)
	if err != nil {
		return nil, err
	}
	res := &recallResult{Queries: len(qs), ExactMs: ms(time.Since(start)) / float64(max(len(qs), 1))}
	found, total := 0, 0
	for i, v := range vecs {
		hits, err := ix.Search(v, latencyK, rerank)
		if err != nil {
			return nil, err
		}
		want := map[string]bool{}
		for _, h := range exact[i] {
			want[h.ID] = true
		}
		for _, h := range hits {
			if want[h.ID] {
				found++
			}
		}
		total += len(exact[i])
	}
	if total > 0 {
		res.Recall = float64(found) / float64(total)
	}
	return res, nil
}

// ScaleVectors is what the vector leg of a scale run measured.
type ScaleVectors struct {
	Dims    int `json:"dims"`
	Vectors int `json:"vectors"`
	// The embedding run: its time (reading the passages, the synthetic
	// embedding, writing and compacting the parts), rate, peak RSS.
	BuildSeconds float64 `json:"build_s"`
	PerSec       float64 `json:"vectors_per_s"`
	BuildRSSMiB  float64 `json:"build_peak_rss_mib"`
	SizeMiB      float64 `json:"size_mib"`
	CodesMiB     float64 `json:"codes_mib"`
	Rerank       int     `json:"rerank"`
	// Recall is the vector leg's recall@10 against an exact scan, over
	// RecallQueries questions.
	Recall        float64 `json:"recall_at_10"`
	RecallQueries int     `json:"recall_queries"`
	ExactMs       float64 `json:"exact_scan_ms"`
	// Rows time dense and hybrid queries as ScaleRow does BM25's.
	Rows []ScaleRow `json:"rows"`
	// RSSRatio is the hybrid query process's peak RSS over the BM25-only
	// one's.
	RSSRatio float64 `json:"hybrid_rss_ratio"`
}

// Goals of the vector leg at 1M×384 on 2 cores (issue 30).
const (
	goalRecall    = 0.98
	goalHybridP50 = 15.0
	goalHybridP99 = 60.0
	goalRSSRatio  = 1.3
)

// runScaleVectors embeds the prefrag corpus with synthetic vectors and
// times the searches by meaning; bm25 is the BM25 query row.
func runScaleVectors(ctx context.Context, cfg ScaleConfig, bm25 ScaleRow, src, qfile string) (*ScaleVectors, error) {
	dir := filepath.Join(cfg.WorkDir, ScalePrefrag)
	dims, seed := strconv.Itoa(cfg.Dims), strconv.FormatUint(cfg.Seed, 10)
	sv := &ScaleVectors{Dims: cfg.Dims, Rerank: cfg.Rerank}
	if sv.Rerank <= 0 {
		sv.Rerank = vector.DefaultRerank
	}
	fmt.Fprintf(cfg.Log, "vectors: embedding the corpus (%d dimensions, synthetic)\n", cfg.Dims)
	var v vectorsResult
	u, err := runChild(ctx, cfg, &v, "vectors", "--src", src, "--dir", dir, "--dims", dims, "--seed", seed)
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	sv.Vectors, sv.BuildSeconds, sv.BuildRSSMiB = v.Vectors, v.Seconds, mib(u.rss)
	sv.SizeMiB, sv.CodesMiB = mib(v.Size), mib(v.Codes)
	if v.Seconds > 0 {
		sv.PerSec = float64(v.Vectors) / v.Seconds
	}
	fmt.Fprintf(cfg.Log, "vectors: %d in %.1fs, peak RSS %.0f MiB, %.0f MiB on disk, codes %.0f MiB\n", v.Vectors, v.Seconds, sv.BuildRSSMiB, sv.SizeMiB, sv.CodesMiB)
	rerank := strconv.Itoa(sv.Rerank)
	var rr recallResult
	if _, err := runChild(ctx, cfg, &rr, "recall", "--dir", dir, "--queries", qfile, "--dims", dims, "--seed", seed, "--rerank", rerank); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	sv.Recall, sv.RecallQueries, sv.ExactMs = rr.Recall, rr.Queries, rr.ExactMs
	fmt.Fprintf(cfg.Log, "vectors: recall@10 %.3f over %d questions (exact scan %.0f ms a question)\n", rr.Recall, rr.Queries, rr.ExactMs)
	for _, mode := range []string{sources.RetrievalDense, sources.RetrievalHybrid} {
		row := ScaleRow{System: ScalePrefrag + " " + mode, Passages: bm25.Passages}
		if _, err := readAll(dir); err != nil {
			return nil, err
		}
		var q queryResult
		u, err := runChild(ctx, cfg, &q, "query", "--engine", ScalePrefrag, "--dir", dir, "--queries", qfile,
			"--samples", strconv.Itoa(cfg.Samples), "--retrieval", mode, "--dims", dims, "--seed", seed, "--rerank", rerank)
		if err != nil {
			return nil, fmt.Errorf("%s queries: %w", mode, err)
		}
		row.ColdMs, row.Samples = q.ColdMs, q.Samples
		row.P50ms1, row.P99ms1 = q.Latency[1][0], q.Latency[1][1]
		row.P50ms2, row.P99ms2 = q.Latency[2][0], q.Latency[2][1]
		row.QueryRSSMiB, row.QueryProcCPU = mib(u.rss), u.cpu
		row.QueryAnonMiB, row.QueryFileMiB, row.QueryHeapMiB = mib(q.AnonRSS), mib(q.FileRSS), mib(int64(q.HeapBytes))
		fmt.Fprintf(cfg.Log, "%s: cold %.0f ms, p50/p99 %.1f/%.1f ms (1), %.1f/%.1f ms (2), peak RSS %.0f MiB\n",
			row.System, row.ColdMs, row.P50ms1, row.P99ms1, row.P50ms2, row.P99ms2, row.QueryRSSMiB)
		sv.Rows = append(sv.Rows, row)
	}
	if bm25.QueryRSSMiB > 0 {
		sv.RSSRatio = sv.Rows[1].QueryRSSMiB / bm25.QueryRSSMiB
	}
	return sv, nil
}

// writeText prints the vector leg's table and the goals.
func (sv *ScaleVectors) writeText(p func(string, ...any), bm25 ScaleRow) {
	p("\nvector leg: %d vectors of %d dimensions (synthetic: anisotropic, in topics and subtopics), built by the embedding run in %.1fs (%.0f/s), peak RSS %.0f MiB, %.0f MiB on disk, %.0f MiB of codes in memory\n",
		sv.Vectors, sv.Dims, sv.BuildSeconds, sv.PerSec, sv.BuildRSSMiB, sv.SizeMiB, sv.CodesMiB)
	p("recall@10 of the vector leg against an exact scan: %.3f over %d questions (%d candidates rescored)\n\n", sv.Recall, sv.RecallQueries, sv.Rerank)
	p("retrieval\tcold ms\tp50/p99 ms (1 proc)\tp50/p99 ms (2 procs)\tquery RSS MiB (heap + files)\n")
	for _, s := range append([]ScaleRow{bm25}, sv.Rows...) {
		p("%s\t%.0f\t%.1f / %.1f\t%.1f / %.1f\t%.0f (%.0f + %.0f)\n", s.System, s.ColdMs, s.P50ms1, s.P99ms1, s.P50ms2, s.P99ms2, s.QueryRSSMiB, s.QueryAnonMiB, s.QueryFileMiB)
	}
	hy := sv.Rows[len(sv.Rows)-1]
	mark := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	p("\ngoals (1M×384, 2 cores): recall@10 %.3f ≥ %.2f %s; hybrid p50 %.1f ≤ %.0f ms %s; p99 %.1f ≤ %.0f ms %s; hybrid RSS %.2f× BM25's ≤ %.1f× %s\n",
		sv.Recall, goalRecall, mark(sv.Recall >= goalRecall), hy.P50ms2, goalHybridP50, mark(hy.P50ms2 <= goalHybridP50),
		hy.P99ms2, goalHybridP99, mark(hy.P99ms2 <= goalHybridP99), sv.RSSRatio, goalRSSRatio, mark(sv.RSSRatio <= goalRSSRatio))
}
