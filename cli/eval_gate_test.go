package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/eval"
)

// checkGateSummary checks prefrag-gated's records against summary.md's
// "answered without retrieval" table: the questions the oracle knows are
// answered with no search and a gate event saying so, the others searched.
func checkGateSummary(t *testing.T, md string, recs []eval.Record, n int) {
	t.Helper()
	rows := tableRows(t, md, "### Answered without retrieval")
	label := eval.StrategyLabel(engine.StrategyPrefRAGGated) + " (`" + engine.StrategyPrefRAGGated + "`)"
	direct, proxy := 0, 0
	for _, r := range recs {
		proxy += r.Counts.ProxyCalls
		var gates []engine.Gate
		for _, raw := range r.Events {
			var ev struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(raw, &ev) == nil && ev.Type == engine.EventGate {
				var g engine.Gate
				if err := json.Unmarshal(raw, &g); err != nil {
					t.Fatal(err)
				}
				gates = append(gates, g)
			}
		}
		if len(gates) != 1 {
			t.Fatalf("%s: %d gate events", r.ID, len(gates))
		}
		if r.Counts.TotalRetrievals() == 0 {
			direct++
			if gates[0].Retrieve || gates[0].Analysis == "" {
				t.Errorf("%s answered without retrieval but the gate said %+v", r.ID, gates[0])
			}
		} else if !gates[0].Retrieve || len(gates[0].Queries) == 0 {
			t.Errorf("%s searched but the gate said %+v", r.ID, gates[0])
		}
	}
	want := []string{strconv.Itoa(n), strconv.Itoa(direct), strconv.FormatFloat(eval.Round2(100*float64(direct)/float64(n)), 'f', 2, 64), strconv.Itoa(proxy)}
	if got := rows[label]; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("answered-without-retrieval row %q, recomputed %q", got, want)
	}
	if direct == 0 || direct == n {
		t.Errorf("prefrag-gated answered %d of %d questions without retrieval; the oracle knows every fourth", direct, n)
	}
}
