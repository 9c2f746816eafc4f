package local

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// syntheticCorpus writes n passages of about 150 words drawn from a Zipf
// vocabulary (as natural text is) into one .jsonl file.
func syntheticCorpus(b testing.TB, path string, n int) []string {
	b.Helper()
	rng := rand.New(rand.NewSource(1))
	vocab := make([]string, 30000)
	for i := range vocab {
		vocab[i] = word(i)
	}
	stop := []string{"the", "of", "and", "a", "in", "to", "is", "was", "for", "on"}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	recs := make([]map[string]string, n)
	for i := range recs {
		ws := make([]string, 150)
		for j := range ws {
			if j%4 == 3 {
				ws[j] = stop[rng.Intn(len(stop))]
			} else {
				ws[j] = vocab[zipf.Uint64()]
			}
		}
		recs[i] = map[string]string{"id": fmt.Sprintf("p%d", i), "title": ws[0] + " " + ws[1], "text": strings.Join(ws, " ") + "."}
	}
	writeJSONL(b, path, recs)
	// Queries: 3–8 words, mostly from the middle of the distribution.
	queries := make([]string, 200)
	for i := range queries {
		n := 3 + rng.Intn(6)
		ws := make([]string, n)
		for j := range ws {
			ws[j] = vocab[zipf.Uint64()]
		}
		queries[i] = strings.Join(ws, " ") + "?"
	}
	return queries
}

// BenchmarkIndexPassages measures ingest speed of ~150-word passages with
// stored text (one .jsonl file, 5,000 passages a run).
func BenchmarkIndexPassages(b *testing.B) {
	const n = 5000
	src := b.TempDir()
	syntheticCorpus(b, filepath.Join(src, "c.jsonl"), n)
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		start := time.Now()
		rep, err := Index(context.Background(), dir, "bench", []string{src}, IndexOptions{})
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		if rep.Passages != n {
			b.Fatalf("indexed %d passages", rep.Passages)
		}
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "passages/s")
}

// BenchmarkSearch measures top-10 query latency over 20,000 passages and
// reports the median and 99th percentile.
func BenchmarkSearch(b *testing.B) {
	src, dir := b.TempDir(), b.TempDir()
	queries := syntheticCorpus(b, filepath.Join(src, "c.jsonl"), 20000)
	if _, err := Index(context.Background(), dir, "bench", []string{src}, IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	c, err := OpenWith(dir, "bench", Options{IdleRelease: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		docs, err := c.Search(context.Background(), queries[i%len(queries)], 10)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if len(docs) == 0 {
			b.Fatal("no results")
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSearchVaswani measures top-10 latency with the 93 real Vaswani
// queries over its 11,429 abstracts (skipped without ../shared/data).
// BenchmarkSearchVaswani times top-10 queries with plain BM25 and with the
// product's default ranking (BM25 + title heuristics over the top 50).
func BenchmarkSearchVaswani(b *testing.B) {
	data := sharedData(b, "ir/vaswani-npl")
	if data == "" {
		b.Skip("../shared/data/ir/vaswani-npl is absent")
	}
	src, dir := b.TempDir(), b.TempDir()
	vaswaniJSONL(b, data, filepath.Join(src, "v.jsonl"))
	if _, err := Index(context.Background(), dir, "v", []string{src}, IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	topics, _ := vaswaniTopics(b, data)
	for _, v := range []struct {
		name string
		opts Options
	}{{"bm25", Options{IdleRelease: -1}}, {"default", Options{TitleHeuristics: true, IdleRelease: -1}}} {
		b.Run(v.name, func(b *testing.B) { benchQueries(b, dir, topics, v.opts) })
	}
}

func benchQueries(b *testing.B, dir string, topics []topic, opts Options) {
	c, err := OpenWith(dir, "v", opts)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := c.Search(context.Background(), topics[i%len(topics)].text, 10); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkIndexLargeTextFile streams one 50 MB text file into a corpus and
// reports the peak Go heap seen during the ingest: the file must never be
// held whole.
func BenchmarkIndexLargeTextFile(b *testing.B) {
	src := b.TempDir()
	path := filepath.Join(src, "big.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(3))
	w := bufio.NewWriterSize(f, 1<<20)
	written := 0
	for written < 50<<20 {
		n, _ := fmt.Fprintf(w, "%s %s %s %s %s. ", word(rng.Intn(20000)), word(rng.Intn(20000)), word(rng.Intn(500)), word(rng.Intn(20000)), word(rng.Intn(50)))
		written += n
		if rng.Intn(40) == 0 {
			n, _ = w.WriteString("\n\n")
			written += n
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.SetBytes(int64(written))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		runtime.GC()
		var peak uint64
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		rep, err := Index(context.Background(), dir, "big", []string{path}, IndexOptions{})
		close(done)
		if err != nil || len(rep.Failed) != 0 {
			b.Fatalf("Index: %v %v", err, rep.Failed)
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(rep.Passages)/rep.Duration.Seconds(), "passages/s")
	}
}
