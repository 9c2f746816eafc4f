package retrieval

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/sources/local"
)

// shippedTolerance is how far the shipped ranking's measured quality may
// drift from the README's figures.
const shippedTolerance = 0.01

// TestShippedRankingMatchesREADME guards the ranking the product ships
// (local.DefaultOptions: BM25 plus the title heuristics), not a variant: it
// indexes each dataset as `prefrag index` does, ranks with the default
// options, scores exactly as `prefrag bench retrieval` does, and checks every
// figure of the README's "title heuristics (product default)" table within
// 0.01. The README is read, so the table and the guard cannot disagree.
// Skipped without ../shared/data.
func TestShippedRankingMatchesREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes about 24k documents")
	}
	data := sharedData(t)
	want := readmeDefaultRankingFigures(t)
	for _, name := range DatasetNames {
		metrics := want[name]
		if len(metrics) == 0 {
			t.Errorf("the README's title heuristics table has no row for %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			ds, err := loadDataset(data, name, 0)
			if err != nil {
				t.Fatal(err)
			}
			row := scoreShipped(t, ds)
			for metric, w := range metrics {
				got, ok := row.Metrics[metric]
				if !ok {
					t.Errorf("%s not measured", metric)
					continue
				}
				t.Logf("%s %s = %.4f (README %.4f)", name, metric, got, w)
				if math.Abs(got-w) > shippedTolerance {
					t.Errorf("%s %s = %.4f, README says %.4f (tolerance %.2f): the shipped ranking changed; re-run `prefrag bench retrieval` and update the README", name, metric, got, w, shippedTolerance)
				}
			}
			t.Logf("%s: %d documents, %d queries in %v", name, len(ds.Docs), len(ds.Queries), time.Since(start).Round(time.Millisecond))
		})
	}
}

// scoreShipped indexes ds with the local corpus code and scores the
// product's default ranking.
func scoreShipped(t *testing.T, ds *Dataset) QualityRow {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, ds.Name+".jsonl")
	if err := writeJSONL(file, ds.Docs); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	corpora := filepath.Join(dir, "corpora")
	rep, err := local.Index(ctx, corpora, ds.Name, []string{file}, local.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failed) > 0 {
		t.Fatalf("%d lines refused, first: %s", len(rep.Failed), rep.Failed[0])
	}
	opts := local.DefaultOptions()
	opts.IdleRelease = -1
	c, err := local.OpenWith(corpora, ds.Name, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	row, err := score(ctx, ranker{system: "shipped", search: bleveSearch(c)}, ds)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

var (
	readmeRowRE    = regexp.MustCompile(`^\|\s*([a-z0-9-]+)\s*\|\s*([^|]+?)\s*\|\s*[^|]*\|\s*([^|]+?)\s*\|\s*$`)
	readmeNumberRE = regexp.MustCompile(`\d+\.\d+`)
)

// readmeDefaultRankingFigures reads the README table whose last column is
// "bleve title heuristics (product default)": dataset → metric → value.
func readmeDefaultRankingFigures(t *testing.T) map[string]map[string]float64 {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "|") && strings.Contains(l, "title heuristics (product default)") {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("docs/benchmarks.md has no table headed \"title heuristics (product default)\"")
	}
	out := map[string]map[string]float64{}
	for _, l := range lines[at+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		m := readmeRowRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("README row not understood: %q", l)
		}
		var names []string
		switch m[2] {
		case "nDCG@10":
			names = []string{MetricNDCG10}
		case "recall@5 / @10":
			names = []string{MetricRecall5, MetricRecall10}
		default:
			t.Fatalf("README metric %q not understood in %q", m[2], l)
		}
		nums := readmeNumberRE.FindAllString(m[3], -1)
		if len(nums) != len(names) {
			t.Fatalf("README row %q: %d figures for %d metrics", l, len(nums), len(names))
		}
		out[m[1]] = map[string]float64{}
		for i, n := range nums {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil {
				t.Fatal(err)
			}
			out[m[1]][names[i]] = v
		}
	}
	return out
}
