package retrieval

import (
	"context"
	"testing"
)

// BenchmarkSearch times warm top-10 searches over the Cranfield queries,
// for each available engine.
func BenchmarkSearch(b *testing.B) {
	ds, err := LoadCranfield(sharedData(b))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, eb := range availableBuilders(nil) {
		idx, err := eb.build(ctx, b.TempDir(), ds, false)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(eb.name, func(b *testing.B) {
			if err := warm(ctx, idx.rankers[0], ds.Queries); err != nil {
				b.Fatal(err)
			}
			for i := 0; b.Loop(); i++ {
				if _, err := idx.rankers[0].search(ctx, ds.Queries[i%len(ds.Queries)].Text, latencyK); err != nil {
					b.Fatal(err)
				}
			}
		})
		idx.close()
	}
}

// BenchmarkIndex times building an index of the HotpotQA paragraph pool
// (4,858 paragraphs of about 90 words) from scratch, for each engine.
func BenchmarkIndex(b *testing.B) {
	data := sharedData(b)
	ds, err := loadDataset(data, "hotpotqa-ircot", 0)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, eb := range availableBuilders(nil) {
		b.Run(eb.name, func(b *testing.B) {
			for b.Loop() {
				idx, err := eb.build(ctx, b.TempDir(), ds, false)
				if err != nil {
					b.Fatal(err)
				}
				idx.close()
			}
			b.ReportMetric(float64(len(ds.Docs)*b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
