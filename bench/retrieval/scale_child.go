package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/prefrag/prefrag/sources/local"
)

// The scale benchmark runs every build and every query session in a child
// process of the same binary (ChildCommand), so that each has its own heap
// and its peak RSS is its own, and so that an open is a cold one.

// Engines of the scale benchmark.
const (
	ScalePrefrag = "prefrag"
	ScaleStock   = "bleve-stock"
	scaleCorpus  = "scale"
)

// ChildCommand is the hidden subcommand, after `prefrag bench`, that runs
// one child of the scale benchmark.
const ChildCommand = "retrieval-child"

// buildResult is what a build child prints.
type buildResult struct {
	Passages int     `json:"passages"`
	Seconds  float64 `json:"seconds"`
	MergeS   float64 `json:"merge_s,omitempty"`
	Segments int     `json:"segments"`
	Size     int64   `json:"size_bytes"`
	// Peak anonymous (heap) and file-backed (mapped index files) resident
	// memory, where the system tells.
	AnonRSS int64 `json:"anon_rss_bytes,omitempty"`
	FileRSS int64 `json:"file_rss_bytes,omitempty"`
}

// queryResult is what a query child prints.
type queryResult struct {
	ColdMs  float64            `json:"cold_ms"`
	Samples int                `json:"samples"`
	Latency map[int][2]float64 `json:"latency"` // GOMAXPROCS -> p50, p99 ms
	Hits    int                `json:"hits"`
	// Peak anonymous (heap) and file-backed (mapped index files) resident
	// memory of the query session, from the open to the last query.
	AnonRSS int64 `json:"anon_rss_bytes,omitempty"`
	FileRSS int64 `json:"file_rss_bytes,omitempty"`
	// HeapBytes is the Go heap's live objects after the last query (after
	// a collection): what the open index keeps.
	HeapBytes uint64 `json:"heap_bytes,omitempty"`
}

// Child runs one child of the scale benchmark: `build` or `query`, with
// flags; it prints its result as JSON on stdout.
func Child(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("retrieval-child: build or query")
	}
	fs := flag.NewFlagSet("retrieval-child", flag.ContinueOnError)
	engine := fs.String("engine", "", "prefrag or bleve-stock")
	src := fs.String("src", "", ".jsonl corpus (build)")
	dir := fs.String("dir", "", "index folder")
	queries := fs.String("queries", "", "queries file, one a line (query)")
	samples := fs.Int("samples", 400, "timed queries per GOMAXPROCS setting (query)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the step to this file")
	dims := fs.Int("dims", 0, "dimensions of the synthetic vectors (vectors, recall, query by meaning)")
	seed := fs.Uint64("seed", 1, "seed of the synthetic vectors")
	mode := fs.String("retrieval", "bm25", "query: bm25, hybrid or dense")
	rerank := fs.Int("rerank", 0, "candidates rescored by the vector leg (0: the default)")
	memprofile := fs.String("memprofile", "", "write a heap profile to this file at the end of the step (query: with the index still open)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *memprofile != "" {
		// Every allocation sampled: the profile then says where each byte
		// of a small heap is, not a 512 KiB sample's guess.
		runtime.MemProfileRate = 1
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var out any
	var err error
	switch args[0] {
	case "build":
		out, err = childBuild(ctx, *engine, *src, *dir)
	case "query":
		v := vectorArgs{dims: *dims, seed: *seed, mode: *mode, rerank: *rerank}
		out, err = childQuery(ctx, *engine, *dir, *queries, *samples, *memprofile, v)
	case "vectors":
		out, err = childVectors(ctx, *src, *dir, *dims, *seed)
	case "recall":
		out, err = childRecall(*dir, *queries, *dims, *seed, *rerank)
	default:
		err = fmt.Errorf("retrieval-child: unknown step %q", args[0])
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(out)
}

func childBuild(ctx context.Context, engine, src, dir string) (*buildResult, error) {
	mem := startMemSampler()
	start := time.Now()
	res := &buildResult{}
	path := filepath.Join(dir, scaleCorpus)
	switch engine {
	case ScalePrefrag:
		rep, err := local.Index(ctx, dir, scaleCorpus, []string{src}, local.IndexOptions{})
		if err != nil {
			return nil, err
		}
		if len(rep.Failed) > 0 {
			return nil, fmt.Errorf("%d lines refused, first: %s", len(rep.Failed), rep.Failed[0])
		}
		res.Passages = int(rep.Passages)
		res.MergeS = rep.Merge.Seconds()
	case ScaleStock:
		n, err := stockBuild(ctx, src, path)
		if err != nil {
			return nil, err
		}
		res.Passages = n
	default:
		return nil, fmt.Errorf("unknown engine %q", engine)
	}
	res.Seconds = time.Since(start).Seconds()
	res.AnonRSS, res.FileRSS = mem.peaks()
	idx, err := bleve.OpenUsing(path, map[string]interface{}{"read_only": true})
	if err != nil {
		return nil, err
	}
	res.Segments, err = bleveSegments(idx)
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	res.Size = local.DirSize(path)
	return res, err
}

// childQuery opens the index cold, times the first query, warms it with
// every query once, then times top-10 queries at GOMAXPROCS 1 and 2.
func childQuery(ctx context.Context, engine, dir, queriesFile string, samples int, memprofile string, v vectorArgs) (*queryResult, error) {
	qs, err := readQueries(queriesFile)
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, errors.New("no queries")
	}
	mem := startMemSampler()
	start := time.Now()
	var search func(ctx context.Context, q string, k int) (int, error)
	var closeFn func() error
	switch engine {
	case ScalePrefrag:
		opts := local.DefaultOptions()
		opts.IdleRelease = -1
		v.apply(&opts)
		c, err := local.OpenWith(dir, scaleCorpus, opts)
		if err != nil {
			return nil, err
		}
		closeFn = c.Close
		search = func(ctx context.Context, q string, k int) (int, error) {
			docs, err := c.Search(ctx, q, k)
			return len(docs), err
		}
	case ScaleStock:
		idx, err := bleve.OpenUsing(filepath.Join(dir, scaleCorpus), map[string]interface{}{"read_only": true})
		if err != nil {
			return nil, err
		}
		closeFn = idx.Close
		search = stockSearch(idx)
	default:
		return nil, fmt.Errorf("unknown engine %q", engine)
	}
	defer closeFn()
	res := &queryResult{Latency: make(map[int][2]float64)}
	if res.Hits, err = search(ctx, qs[0], latencyK); err != nil {
		return nil, err
	}
	res.ColdMs = ms(time.Since(start))
	for _, q := range qs {
		if _, err := search(ctx, q, latencyK); err != nil {
			return nil, err
		}
	}
	if err := timeQueries(ctx, search, qs, samples, res); err != nil {
		return nil, err
	}
	res.AnonRSS, res.FileRSS = mem.peaks()
	runtime.GC()
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	res.HeapBytes = st.HeapAlloc
	if memprofile != "" {
		if err := writeHeapProfile(memprofile); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// timeQueries times top-10 searches of qs, samples at GOMAXPROCS 1 and as
// many at 2, into res.
func timeQueries(ctx context.Context, search func(context.Context, string, int) (int, error), qs []string, samples int, res *queryResult) error {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		var times []time.Duration
		for len(times) < samples {
			for _, q := range qs {
				if err := ctx.Err(); err != nil {
					return err
				}
				t := time.Now()
				if _, err := search(ctx, q, latencyK); err != nil {
					return err
				}
				times = append(times, time.Since(t))
				if len(times) >= samples {
					break
				}
			}
		}
		res.Samples = len(times)
		res.Latency[procs] = [2]float64{ms(Percentile(times, 50)), ms(Percentile(times, 99))}
	}
	return nil
}

// writeHeapProfile writes the heap profile of the live objects to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
