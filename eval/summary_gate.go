package eval

import (
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/engine"
)

// addGate counts a question answered without retrieval and the retrieval
// gate's proxy-model calls.
func (row *Row) addGate(c engine.Counts) {
	if c.TotalRetrievals() == 0 {
		row.NoRetrieval++
	}
	row.ProxyCalls += c.ProxyCalls
}

// gateTable writes, per strategy, the share of questions answered without
// retrieval (the retrieval gate's direct answers) and the gate's calls.
func gateTable(b *strings.Builder, rows []Row) {
	b.WriteString("\n### Answered without retrieval\n\n")
	b.WriteString("Questions answered with no search at all: the retrieval gate's direct answers (slimplm, smartrag, prefrag-gated), every question of no-retrieval. Proxy calls are the gate's calls of the proxy model (also in LLM calls).\n\n")
	b.WriteString("| Method | Questions | answered without retrieval | share (%) | proxy calls |\n|---|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %d | %d | %.2f | %d |\n", rowLabel(r.Strategy), r.Questions, r.NoRetrieval, r.NoRetrievalShare, r.ProxyCalls)
	}
}
