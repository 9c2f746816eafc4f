package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/bench/retrieval"
	"github.com/prefrag/prefrag/config"
)

func benchRetrievalEnv() (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	cfg, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		panic(err)
	}
	return &env{stdout: &out, stderr: &errOut, ctx: context.Background(), cfg: cfg}, &out, &errOut
}

func TestBenchRetrievalUsageErrors(t *testing.T) {
	withIR := t.TempDir()
	if err := os.Mkdir(filepath.Join(withIR, "ir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--fast"}, "-fast"},
		{"positional argument", []string{"--data", withIR, "vaswani"}, "takes no arguments"},
		{"data without ir", []string{"--data", t.TempDir()}, "has no ir/ folder"},
		{"unknown dataset", []string{"--data", withIR, "--datasets", "msmarco"}, `unknown dataset "msmarco"`},
		{"bad size", []string{"--data", withIR, "--large-size", "0"}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _, _ := benchRetrievalEnv()
			err := benchCommand(e, append([]string{"retrieval"}, tt.args...))
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a usage error containing %q", err, tt.want)
			}
		})
	}
}

func TestBenchRetrievalRunsASlice(t *testing.T) {
	wd, _ := os.Getwd()
	data := retrieval.FindSharedData(wd)
	if data == "" {
		t.Skip("../shared/data is absent")
	}
	work := t.TempDir()
	e, out, errOut := benchRetrievalEnv()
	if err := benchCommand(e, []string{"retrieval", "--data", data, "--datasets", "cranfield", "--max-docs", "300", "--latency-samples", "20", "--work", work, "--json"}); err != nil {
		t.Fatal(err)
	}
	var rep retrieval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not one JSON report: %v\n%s", err, out.String())
	}
	if len(rep.Quality) == 0 || rep.Quality[0].Dataset != "cranfield" || rep.Quality[0].System != "bleve" || rep.Quality[0].Docs != 300 {
		t.Errorf("quality rows %+v", rep.Quality)
	}
	if len(rep.Speed) == 0 || rep.Speed[0].Samples < 20 {
		t.Errorf("speed rows %+v", rep.Speed)
	}
	if !strings.Contains(errOut.String(), "cranfield: 300 documents") {
		t.Errorf("progress on stderr: %q", errOut.String())
	}
	// The named --work folder stays; the run's own subfolder is removed.
	entries, err := os.ReadDir(work)
	if err != nil || len(entries) != 0 {
		t.Errorf("--work folder after the run: %v, %v", entries, err)
	}
}
