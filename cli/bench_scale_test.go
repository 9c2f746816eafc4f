package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/bench/retrieval"
)

// TestMain lets this test binary stand for prefrag when the scale benchmark
// starts its child processes (os.Executable is the test binary).
func TestMain(m *testing.M) {
	if os.Getenv("PREFRAG_TEST_AS_PREFRAG") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestBenchRetrievalScale(t *testing.T) {
	wd, _ := os.Getwd()
	data := retrieval.FindSharedData(wd)
	if data == "" {
		t.Skip("../shared/data is absent")
	}
	t.Setenv("PREFRAG_TEST_AS_PREFRAG", "1")
	work := t.TempDir()
	for _, asJSON := range []bool{true, false} {
		e, out, errOut := benchRetrievalEnv()
		args := []string{"--data", data, "--scale", "2000", "--latency-samples", "20", "--work", work}
		if asJSON {
			args = append(args, "--json")
		}
		if err := benchCommand(e, append([]string{"retrieval"}, args...)); err != nil {
			t.Fatalf("%v\nstderr: %s", err, errOut)
		}
		if asJSON {
			checkScaleJSON(t, out.Bytes())
		} else {
			checkScaleText(t, out.String())
		}
	}
	// The generated files and indexes are removed afterwards.
	if left, _ := os.ReadDir(work); len(left) != 0 {
		t.Errorf("work folder keeps %d entries", len(left))
	}
}

// checkScaleText checks the text report of `bench retrieval --scale 2000`.
func checkScaleText(t *testing.T, out string) {
	for _, want := range []string{"prefrag bench retrieval --scale 2000", "passages/s", "p50/p99 ms (2 procs)", "prefrag  ", "bleve-stock", "× stock Bleve", "builds taking turns, 2 each"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

// checkScaleJSON checks the JSON report of `bench retrieval --scale 2000`:
// a row per engine with every figure, each the fastest of two builds.
func checkScaleJSON(t *testing.T, out []byte) {
	var rep retrieval.ScaleReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Passages != 2000 || rep.Queries == 0 || rep.AvgWords < 50 || len(rep.Rows) != 2 || rep.BuildRatio <= 0 {
		t.Fatalf("report %+v", rep)
	}
	for i, want := range []string{retrieval.ScalePrefrag, retrieval.ScaleStock} {
		r := rep.Rows[i]
		if r.System != want || r.Passages != 2000 || r.PassagesPerSec <= 0 || r.BuildRSSMiB <= 0 || r.SizeBytes <= 0 ||
			r.Segments < 1 || r.ColdMs <= 0 || r.Samples < 20 || r.P50ms1 <= 0 || r.P99ms1 < r.P50ms1 || r.P50ms2 <= 0 || r.P99ms2 < r.P50ms2 {
			t.Errorf("row %d: %+v", i, r)
		}
		// Two rounds by default: each row has both builds and the
		// fastest as its time.
		if len(r.BuildsSeconds) != 2 || r.BuildSeconds != min(r.BuildsSeconds[0], r.BuildsSeconds[1]) {
			t.Errorf("row %d: build %v of builds %v, want the fastest of 2", i, r.BuildSeconds, r.BuildsSeconds)
		}
	}
	if rep.Rows[0].Segments > 2 {
		t.Errorf("prefrag left %d segments", rep.Rows[0].Segments)
	}
}
