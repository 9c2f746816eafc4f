package eval

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// The share of questions answered without retrieval is reported per
// strategy, with the gate's proxy calls.
func TestSummaryAnsweredWithoutRetrieval(t *testing.T) {
	recs := []Record{
		{Dataset: "d", Index: 0, Strategy: engine.StrategyPrefRAGGated, Counts: engine.Counts{LLMCalls: 3, ProxyCalls: 2}},
		{Dataset: "d", Index: 1, Strategy: engine.StrategyPrefRAGGated, Counts: engine.Counts{LLMCalls: 6, ProxyCalls: 3, LocalRetrievals: 2}},
		{Dataset: "d", Index: 2, Strategy: engine.StrategyPrefRAGGated, Counts: engine.Counts{LLMCalls: 6, ProxyCalls: 3, WebRetrievals: 1}},
		{Dataset: "d", Index: 0, Strategy: engine.StrategyPrefRAG, Counts: engine.Counts{LLMCalls: 4, LocalRetrievals: 1}},
	}
	s := Summarize(recs)
	rows := s.Datasets[0].Rows
	if len(rows) != 2 {
		t.Fatalf("rows = %+v", rows)
	}
	byName := map[string]Row{rows[0].Strategy: rows[0], rows[1].Strategy: rows[1]}
	g, p := byName[engine.StrategyPrefRAGGated], byName[engine.StrategyPrefRAG]
	if g.NoRetrieval != 1 || g.NoRetrievalShare != 33.33 || g.ProxyCalls != 8 || p.NoRetrieval != 0 || p.NoRetrievalShare != 0 {
		t.Errorf("gated %+v\nprefrag %+v", g, p)
	}
	md := s.Markdown(nil)
	if !strings.Contains(md, "### Answered without retrieval") || !strings.Contains(md, "| PrefRAG + gate (`prefrag-gated`) | 3 | 1 | 33.33 | 8 |") {
		t.Errorf("summary.md lacks the gate table:\n%s", md)
	}
}
