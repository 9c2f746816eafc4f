package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/eval/enginebench"
)

func benchEnv(t *testing.T) (*env, *bytes.Buffer) {
	t.Helper()
	cfg, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		cfg = &config.Config{}
	}
	var out bytes.Buffer
	return &env{stdout: &out, stderr: &out, cfg: cfg, ctx: context.Background()}, &out
}

func TestBenchEngineReportsTheFigures(t *testing.T) {
	e, out := benchEnv(t)
	if err := benchCommand(e, []string{"engine", "--limit", "12", "--strategies", "prefrag,react-mix", "--json"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one line per strategy, got %q", out.String())
	}
	for i, want := range []string{"prefrag", "react-mix"} {
		var r struct {
			Data string `json:"data"`
			enginebench.Result
		}
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatal(err)
		}
		if r.Strategy != want || r.Runs != 12 || r.Data != "synthetic two-hop questions" || r.PrefixReuse != 1 || r.LLMCalls == 0 || r.OverheadPerCall <= 0 {
			t.Errorf("line %d: %+v", i, r)
		}
	}

	for _, data := range qaFiles(t) {
		out.Reset()
		if err := benchCommand(e, []string{"engine", "--data", data, "--limit", "10"}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"prefrag on " + eval.DatasetName(data) + " (10 questions)", "engine overhead", "per LLM call", "prompt reuse     1.0000", "allocations"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
	}
}

func TestBenchEngineUsage(t *testing.T) {
	e, _ := benchEnv(t)
	for _, args := range [][]string{{"--strategies", "nope"}, {"--holdout", "3"}, {"extra"}} {
		var ue *usageError
		if err := benchCommand(e, append([]string{"engine"}, args...)); !errors.As(err, &ue) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
