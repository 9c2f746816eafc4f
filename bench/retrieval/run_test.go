package retrieval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// sharedData returns the shared data folder or skips the test.
func sharedData(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := FindSharedData(wd)
	if dir == "" {
		t.Skip("../shared/data is absent")
	}
	return dir
}

func TestLoadRealDatasets(t *testing.T) {
	data := sharedData(t)
	tests := []struct {
		name             string
		docs, queries    int
		graded, hasTitle bool
	}{
		{"vaswani", 11429, 93, false, false},
		// Documents 471 and 995 are empty in the distributed file.
		{"cranfield", 1398, 225, true, true},
		{"hotpotqa-ircot", 4858, 500, false, true},
		// 36 of the 200 2Wiki questions come without their paragraphs.
		{"migres-2wiki", 0, 164, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := loadDataset(data, tt.name, 0)
			if err != nil {
				t.Fatal(err)
			}
			if (tt.docs > 0 && len(ds.Docs) != tt.docs) || len(ds.Queries) != tt.queries {
				t.Errorf("%d docs, %d queries; want %d, %d", len(ds.Docs), len(ds.Queries), tt.docs, tt.queries)
			}
			if ds.Graded != tt.graded || ds.HasTitles() != tt.hasTitle {
				t.Errorf("graded %v, titles %v", ds.Graded, ds.HasTitles())
			}
		})
	}
}

func TestRunSlice(t *testing.T) {
	data := sharedData(t)
	var log bytes.Buffer
	rep, err := Run(context.Background(), Config{
		DataDir: data, WorkDir: t.TempDir(), Datasets: []string{"cranfield", "hotpotqa-ircot"},
		MaxDocs: 300, LatencySamples: 50, Large: true, LargeSize: 500, Seed: 3, Log: &log,
	})
	if err != nil {
		t.Fatal(err)
	}
	systems := []string{"bleve", "bleve title boost 1", "bleve title heuristics"}
	engines := []string{"bleve"}
	if fts5Available {
		systems = append(systems, "fts5", "fts5 title weight 2")
		engines = append(engines, "fts5")
	}
	var want []string
	for _, ds := range []string{"cranfield", "hotpotqa-ircot"} {
		for _, s := range systems {
			want = append(want, ds+"/"+s)
		}
	}
	var got []string
	for _, q := range rep.Quality {
		got = append(got, q.Dataset+"/"+q.System)
		metrics := []string{MetricNDCG10, MetricNDCG10Graded, MetricRecall100}
		if q.Dataset == "hotpotqa-ircot" {
			metrics = []string{MetricRecall5, MetricRecall10}
		}
		for _, m := range metrics {
			// Far from chance on a 300-document slice (the full-collection
			// figures are in the benchmark's own output).
			if v, ok := q.Metrics[m]; !ok || v < 0.3 || v > 1 {
				t.Errorf("%s %s %s = %v (present %v)", q.Dataset, q.System, m, v, ok)
			}
		}
		if q.Docs > 300 || q.Queries == 0 {
			t.Errorf("%s: %d docs, %d queries", q.Dataset, q.Docs, q.Queries)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("quality rows %v, want %v", got, want)
	}
	got = got[:0]
	for _, s := range rep.Speed {
		got = append(got, s.Dataset+"/"+s.System)
		if s.Samples < 50 || s.P50ms <= 0 || s.P99ms < s.P50ms || s.SizeBytes <= 0 || s.DocsPerSec <= 0 || s.Passages < s.Docs {
			t.Errorf("speed row %+v", s)
		}
	}
	want = want[:0]
	for _, ds := range []string{"cranfield", "hotpotqa-ircot", "synthetic-500"} {
		for _, e := range engines {
			want = append(want, ds+"/"+e)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("speed rows %v, want %v", got, want)
	}

	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, s := range []string{
		"Quality: test collections", "nDCG@10 graded", "recall@100",
		"Quality: multi-hop paragraph pools", "recall@5", "recall@10",
		"Speed: index build and warm top-10 queries", "p50 ms", "p99 ms",
		"cranfield: 2 empty documents skipped", "synthetic-500: 500 passages",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if !fts5Available && !strings.Contains(out, ErrFTS5NotBuilt.Error()) {
		t.Errorf("output does not say FTS5 is missing:\n%s", out)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Quality) != len(rep.Quality) || len(back.Speed) != len(rep.Speed) {
		t.Errorf("JSON report does not read back: %v", err)
	}
	if !strings.Contains(log.String(), "cranfield: 300 documents") {
		t.Errorf("progress log:\n%s", log.String())
	}
}

func TestRunRefusesUnknownDataset(t *testing.T) {
	_, err := Run(context.Background(), Config{DataDir: t.TempDir(), WorkDir: t.TempDir(), Datasets: []string{"msmarco"}})
	if !errors.Is(err, ErrUnknownDataset) {
		t.Errorf("err = %v, want ErrUnknownDataset", err)
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	data := sharedData(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{DataDir: data, WorkDir: t.TempDir(), Datasets: []string{"cranfield"}, MaxDocs: 50})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
