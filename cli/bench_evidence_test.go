package cli

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/bench/evidence"
)

const tinyEvidence = "../bench/evidence/testdata/tiny_hotpot.json"

func TestBenchEvidenceUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", nil, "needs --file"},
		{"positional", []string{"--file", tinyEvidence, "x"}, "no positional"},
		{"unknown system", []string{"--file", tinyEvidence, "--systems", "bm25"}, `unknown system "bm25"`},
		{"no system", []string{"--file", tinyEvidence, "--systems", ","}, "no system"},
		{"negative limit", []string{"--file", tinyEvidence, "--limit", "-1"}, "--limit"},
		{"missing file", []string{"--file", "/nonexistent/q.json"}, "no such file"},
		{"not a question file", []string{"--file", "../go.mod"}, "not a HotpotQA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _, _ := benchRetrievalEnv()
			err := benchCommand(e, append([]string{"evidence"}, tt.args...))
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a usage error containing %q", err, tt.want)
			}
		})
	}
}

func TestBenchEvidenceJSON(t *testing.T) {
	e, out, _ := benchRetrievalEnv()
	if err := benchCommand(e, []string{"evidence", "--file", tinyEvidence, "--json"}); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Questions int            `json:"questions"`
		Rows      []evidence.Row `json:"rows"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	if rep.Questions != 3 || len(rep.Rows) != 2 || rep.Rows[1].System != "aligner" || rep.Rows[1].F1 < 0.99 {
		t.Errorf("report %+v", rep)
	}
}

func TestBenchEvidenceTable(t *testing.T) {
	e, out, _ := benchRetrievalEnv()
	if err := benchCommand(e, []string{"evidence", "--file", tinyEvidence, "--systems", "aligner", "--limit", "2"}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"2 questions", "aligner ", "µs/claim p50"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "baseline ") {
		t.Errorf("baseline row though not asked for:\n%s", s)
	}
}
