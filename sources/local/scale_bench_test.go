package local_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/prefrag/prefrag/bench/retrieval"
	"github.com/prefrag/prefrag/sources/local"
)

// The scale benchmarks search a corpus synthesised from the shared
// multi-hop paragraphs (retrieval.Synthesize: real titles and words, 120–180
// words a passage) with the 200 HotpotQA questions of migres-dev200 as
// queries. The size is 10,000 passages unless PREFRAG_BENCH_SCALE says
// otherwise (e.g. 1000000); PREFRAG_BENCH_DIR keeps the built corpora there
// between runs (they are rebuilt only when missing). Run with -cpu 1,2 to
// time GOMAXPROCS 1 and 2.

const scaleSeed = 1

func scaleSize() int {
	if n, err := strconv.Atoi(os.Getenv("PREFRAG_BENCH_SCALE")); err == nil && n > 0 {
		return n
	}
	return 10000
}

// scaleData returns the queries and a function synthesising the passages;
// it skips without ../shared/data.
func scaleData(tb testing.TB, n int) (docs func() []retrieval.Doc, queries []string) {
	tb.Helper()
	data := retrieval.FindSharedData(".")
	if data == "" {
		tb.Skip("../shared/data is absent")
	}
	var pools []*retrieval.Dataset
	for _, f := range []struct{ name, path string }{
		{"migres-hotpotqa", "migres-dev200/hotpot.json"},
		{"migres-musique", "migres-dev200/musique.json"},
		{"migres-2wiki", "migres-dev200/wikihop.json"},
	} {
		ds, err := retrieval.LoadPool(data, f.name, f.path, 0)
		if err != nil {
			tb.Skipf("%s: %v", f.path, err)
		}
		pools = append(pools, ds)
	}
	for _, q := range pools[0].Queries {
		queries = append(queries, q.Text)
	}
	return func() []retrieval.Doc {
		var all []retrieval.Doc
		for _, ds := range pools {
			all = append(all, ds.Docs...)
		}
		return retrieval.Synthesize(all, n, scaleSeed)
	}, queries
}

// scaleCorpus builds (or reuses) the prefrag corpus and, with stock, a stock
// Bleve index of the same passages; it returns the corpora directory, the
// corpus name, the stock index path and the queries.
func scaleCorpus(tb testing.TB, root string, stock bool) (dir, name, stockPath string, queries []string) {
	tb.Helper()
	n := scaleSize()
	root = filepath.Join(root, fmt.Sprintf("scale-%d", n))
	docs, queries := scaleData(tb, n)
	dir, name = filepath.Join(root, "corpora"), "scale"
	stockPath = filepath.Join(root, "stock.bleve")
	file := filepath.Join(root, "src", "scale.jsonl")
	done := filepath.Join(root, "corpus.done") // written once the build ended
	if _, err := os.Stat(done); err != nil {
		_ = os.RemoveAll(dir)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := writeDocs(file, docs()); err != nil {
			tb.Fatal(err)
		}
		start := time.Now()
		rep, err := local.Index(context.Background(), dir, name, []string{file}, local.IndexOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Logf("indexed %d passages in %s", rep.Passages, time.Since(start).Round(time.Millisecond))
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if stock {
		if _, err := os.Stat(stockPath + ".done"); err != nil {
			buildStock(tb, stockPath, docs())
			if err := os.WriteFile(stockPath+".done", nil, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return dir, name, stockPath, queries
}

// scaleRoot is PREFRAG_BENCH_DIR, or a temporary directory removed when
// the benchmark ends.
func scaleRoot(b *testing.B) string {
	if root := os.Getenv("PREFRAG_BENCH_DIR"); root != "" {
		return root
	}
	return b.TempDir()
}

func writeDocs(path string, docs []retrieval.Doc) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stockMapping is stock Bleve with its "bm25" scoring over title and text.
func stockMapping() mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	m.ScoringModel = "bm25"
	m.DefaultAnalyzer = "en"
	return m
}

func buildStock(tb testing.TB, path string, docs []retrieval.Doc) {
	tb.Helper()
	_ = os.RemoveAll(path)
	idx, err := bleve.New(path, stockMapping())
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	b := idx.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.ID, map[string]string{"title": d.Title, "text": d.Text}); err != nil {
			tb.Fatal(err)
		}
		if b.Size() >= 10000 {
			if err := idx.Batch(b); err != nil {
				tb.Fatal(err)
			}
			b.Reset()
		}
	}
	if err := idx.Batch(b); err != nil {
		tb.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("stock Bleve indexed %d passages in %s", len(docs), time.Since(start).Round(time.Millisecond))
}

// stockSearch is a stock Bleve top-k match query loading the stored fields
// of the hits.
func stockSearch(idx bleve.Index, query string, k int) error {
	req := bleve.NewSearchRequestOptions(bleve.NewMatchQuery(query), k, 0, false)
	req.Fields = []string{"title", "text"}
	_, err := idx.Search(req)
	return err
}

// latencyMetrics reports the median and 99th percentile of lat.
func latencyMetrics(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkSearchScale times top-10 queries with the product's default
// ranking (BM25 + title heuristics), the previous implementation
// ("legacy", kept for comparison in the same run) and stock Bleve's bm25
// over the same passages.
func BenchmarkSearchScale(b *testing.B) {
	root := scaleRoot(b)
	dir, name, _, queries := scaleCorpus(b, root, false)
	search := func(b *testing.B, f func(q string) error) {
		for i := 0; i < 2*len(queries); i++ { // warm
			if err := f(queries[i%len(queries)]); err != nil {
				b.Fatal(err)
			}
		}
		lat := make([]time.Duration, 0, b.N)
		cpu := processCPU()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if err := f(queries[i%len(queries)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		// CPU per query: less disturbed than wall time on a shared machine.
		b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		latencyMetrics(b, lat)
	}
	ctx := context.Background()
	for _, v := range []struct {
		name   string
		legacy bool
	}{{"default", false}, {"legacy", true}} {
		b.Run(v.name, func(b *testing.B) {
			c, err := local.OpenWith(dir, name, local.Options{TitleHeuristics: true, IdleRelease: -1})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			search(b, func(q string) error {
				var err error
				if v.legacy {
					_, err = local.SearchLegacy(ctx, c, q, 10)
				} else {
					_, err = c.Search(ctx, q, 10)
				}
				return err
			})
		})
	}
	b.Run("stock", func(b *testing.B) {
		_, _, stockPath, _ := scaleCorpus(b, root, true)
		idx, err := bleve.OpenUsing(stockPath, map[string]interface{}{"read_only": true})
		if err != nil {
			b.Fatal(err)
		}
		defer idx.Close()
		search(b, func(q string) error { return stockSearch(idx, q, 10) })
	})
}

// BenchmarkColdOpenScale times opening the corpus and answering its first
// query (default ranking), beside the previous implementation and stock
// Bleve. The files are in the page cache after the first iteration; "cold"
// is the process's view: nothing is open or decoded yet.
func BenchmarkColdOpenScale(b *testing.B) {
	root := scaleRoot(b)
	dir, name, _, queries := scaleCorpus(b, root, false)
	ctx := context.Background()
	cold := func(b *testing.B, f func(q string) error) {
		lat := make([]time.Duration, 0, b.N)
		cpu := processCPU()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if err := f(queries[i%len(queries)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		latencyMetrics(b, lat)
	}
	for _, legacy := range []bool{false, true} {
		b.Run(map[bool]string{false: "default", true: "legacy"}[legacy], func(b *testing.B) {
			cold(b, func(q string) error {
				c, err := local.OpenWith(dir, name, local.Options{TitleHeuristics: true, IdleRelease: -1})
				if err != nil {
					return err
				}
				defer c.Close()
				if legacy {
					_, err = local.SearchLegacy(ctx, c, q, 10)
				} else {
					_, err = c.Search(ctx, q, 10)
				}
				return err
			})
		})
	}
	b.Run("stock", func(b *testing.B) {
		_, _, stockPath, _ := scaleCorpus(b, root, true)
		cold(b, func(q string) error {
			idx, err := bleve.OpenUsing(stockPath, map[string]interface{}{"read_only": true})
			if err != nil {
				return err
			}
			defer idx.Close()
			return stockSearch(idx, q, 10)
		})
	})
}
