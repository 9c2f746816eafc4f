package export

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// storeThread stores the case study and a follow-up turn that searches,
// cites a new document [8] and the first turn's [6].
func storeThread(t *testing.T, s *store.Store) *store.Record {
	t.Helper()
	ctx := context.Background()
	first := storeCaseStudy(t, s, caseID)
	if err := s.ContinueSession(ctx, caseID); err != nil {
		t.Fatal(err)
	}
	olsen := first.Events[len(first.Events)-1].Payload.(engine.Final).Sources[0]
	studies := sources.Document{ID: "Olsen_studies#0", Title: "Olsen's studies", Text: "Olsen studied botany at the University of Copenhagen.", Source: "local:wiki", Score: 9, Locator: "wiki/olsen.md"}
	tr, st := true, "Where did Carsten Erik Olsen study?"
	evs := []engine.Event{
		{Payload: engine.Rewrite{Original: "and where did he study?", Rewritten: st}},
		{Payload: engine.ThreadContext{DocsCarried: []int{6}, DocsLeftOut: []int{1, 2, 3, 4, 5, 7}, Tokens: 120, Budget: 5160, PromptBudget: 12902}},
		{Step: 1, Payload: engine.Thought{Text: "Search his studies."}},
		{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "Carsten Olsen studies"}},
		{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "Carsten Olsen studies", Docs: []sources.Document{studies}}},
		{Step: 1, Payload: engine.Selection{Status: &tr, Analysis: "says where", Source: "local:wiki", JudgeNew: "[8] title: Olsen's studies"}},
		{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{studies.ID}, DocNums: []int{8}}},
		{Step: 2, Payload: engine.Answer{Text: "In Copenhagen [8]; he is the ecologist of [6].", Label: "CORRECT"}},
		{Payload: engine.Final{Answer: "In Copenhagen [8]; he is the ecologist of [6].", Label: "CORRECT", Citations: []int{8, 6}, Sources: []sources.Document{studies, olsen}, SourceNums: []int{8, 6}, Counts: &engine.Counts{LLMCalls: 4, RewriteCalls: 1, StepCalls: 2, JudgeCalls: 1, LocalRetrievals: 1}}},
	}
	last := first.Events[len(first.Events)-1].Seq
	for i := range evs {
		evs[i].Session, evs[i].Seq, evs[i].Turn, evs[i].Time = caseID, last+1+i, 2, fixture.Start.Add(time.Hour+time.Duration(i)*time.Second)
	}
	if err := s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishSession(ctx, caseID, store.StatusAnswered, evs[len(evs)-1].Payload.(engine.Final).Answer, "CORRECT", nil); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetSession(ctx, caseID)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestThreadExports(t *testing.T) {
	rec := storeThread(t, openStore(t))
	var md bytes.Buffer
	if err := Write(&md, FormatMarkdown, rec); err != nil {
		t.Fatal(err)
	}
	doc := md.String()
	for _, want := range []string{
		"# " + inline(fixture.Question),
		"## Turn 1: " + inline(fixture.Question),
		"## Turn 2: and where did he study?",
		"*Rewritten as:* Where did Carsten Erik Olsen study?",
		"### Answer\n\nIn Copenhagen [8]",
		"| follow-up rewrite calls | 1 |",
		"- [8] **Olsen's studies**",
		"- [6] **Carsten Olsen**",
		"#### Step 1",
		"### Counts",
		"## Settings",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Index(doc, "## Turn 1") > strings.Index(doc, "## Turn 2") || strings.Count(doc, "## Settings") != 1 {
		t.Errorf("turns out of order or settings repeated:\n%s", doc)
	}
	var js, jl bytes.Buffer
	if err := Write(&js, FormatJSON, rec); err != nil {
		t.Fatal(err)
	}
	if err := Write(&jl, FormatJSONL, rec); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"json": js.String(), "jsonl": jl.String()} {
		if !strings.Contains(out, `"turns": 2`) && !strings.Contains(out, `"turns":2`) {
			t.Errorf("%s export lacks the turn count", name)
		}
		if strings.Count(out, `"turn":2`)+strings.Count(out, `"turn": 2`) != 9 {
			t.Errorf("%s export: want the 9 events of turn 2 marked", name)
		}
	}
	back, err := ReadJSON(&js)
	if err != nil || len(back) != 1 || len(back[0].Events) != len(rec.Events) {
		t.Fatalf("JSON export read back: %v", err)
	}
	pairs := Pairs(rec)
	if len(pairs) != 3 {
		t.Fatalf("%d pairs, want 3", len(pairs))
	}
	if p := pairs[2]; p.Turn != 2 || p.Question != "Where did Carsten Erik Olsen study?" || p.Query != "Carsten Olsen studies" {
		t.Errorf("turn-2 pair %+v", p)
	}
	if p := pairs[0]; p.Turn != 0 || p.Question != fixture.Question {
		t.Errorf("turn-1 pair %+v", p)
	}
}

// A session of one turn is exported as before (no turn sections).
func TestSingleTurnMarkdownHasNoTurns(t *testing.T) {
	rec := storeCaseStudy(t, openStore(t), caseID)
	var md bytes.Buffer
	if err := Markdown(&md, rec); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "## Turn") {
		t.Fatal("a one-question session got turn sections")
	}
}

// A thread's export says whose times and counts it shows: the header's
// span runs from the first question to the last answer (it includes the
// time between turns), and each turn's counts are headed as that turn's.
func TestThreadMarkdownLabelsTimesAndCounts(t *testing.T) {
	rec := storeThread(t, openStore(t))
	var md bytes.Buffer
	if err := Write(&md, FormatMarkdown, rec); err != nil {
		t.Fatal(err)
	}
	doc := md.String()
	for _, want := range []string{"from the first question to the last answer)", "### Counts of turn 1\n", "### Counts of turn 2\n"} {
		if !strings.Contains(doc, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "### Counts\n") {
		t.Errorf("a thread's counts table without its turn:\n%s", doc)
	}
}
