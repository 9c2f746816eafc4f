package export

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// TestMarkdownQuotesEvidence: the Markdown export quotes, under each cited
// source, the sentences of it that support a claim (escaped), and marks the
// claims without support.
func TestMarkdownQuotesEvidence(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	docs := []sources.Document{{ID: "a", Title: "Velloran", Source: "local:kb"}, {ID: "b", Title: "Harbour", Source: "local:kb"}}
	evs := []engine.Event{
		{Seq: 1, Time: at, Payload: engine.SessionStart{Question: "Q?"}},
		{Seq: 2, Time: at, Payload: engine.Evidence{Claims: []evidence.Result{
			{Text: "Founded in 1887 [1].", Citations: []int{1}, Verdict: evidence.Supported,
				Support: []evidence.Quote{{N: 1, Quote: "It was founded in *1887*.", Start: 0, End: 25, Score: 0.8}}},
			{Text: "Its director won a Nobel prize [2].", Citations: []int{2}, Verdict: evidence.Unsupported},
		}}},
		{Seq: 3, Time: at, Payload: engine.Final{Answer: "Founded in 1887 [1]. Its director won a Nobel prize [2].",
			Citations: []int{1, 2}, Sources: docs, SourceNums: []int{1, 2}}},
	}
	rec := &store.Record{Session: store.Session{ID: "s", Question: "Q?", Started: at}, Events: evs}
	var b strings.Builder
	if err := Markdown(&b, rec); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"- [1] **Velloran** — local:kb", "  > “It was founded in \\*1887\\*.”",
		"- ⚠ Its director won a Nobel prize \\[2\\]. — *no support found in [2]*",
		"**Evidence.** The answer's 2 claims",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("export lacks %q:\n%s", want, md)
		}
	}
	if i, j := strings.Index(md, "[1] **Velloran**"), strings.Index(md, "founded in"); j < i || j > strings.Index(md, "[2] **Harbour**") {
		t.Errorf("quote not under its source:\n%s", md)
	}
}

// TestExportCountsNameClaimCheck: the exports' counts (Markdown and HTML
// share them) give the claim check calls a row of their own when there
// were any.
func TestExportCountsNameClaimCheck(t *testing.T) {
	rows := countsRows(&engine.Counts{LLMCalls: 5, StepCalls: 2, JudgeCalls: 2, VerifyCalls: 1})
	found := false
	for _, r := range rows {
		if fmt.Sprint(r) == fmt.Sprint(kv{"claim check calls", "1"}) {
			found = true
		}
	}
	if !found {
		t.Errorf("no claim check row in %v", rows)
	}
	for _, r := range countsRows(&engine.Counts{LLMCalls: 4, StepCalls: 2, JudgeCalls: 2}) {
		if strings.Contains(fmt.Sprint(r), "claim check") {
			t.Errorf("a claim check row without a claim check: %v", r)
		}
	}
}
