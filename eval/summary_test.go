package eval

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

var update = flag.Bool("update", false, "rewrite golden files")

func rec(dataset, strategy string, index int, acc, em, f1 float64, c engine.Counts, wall int64) Record {
	return Record{Dataset: dataset, Strategy: strategy, ID: dataset + string(rune('a'+index)), Index: index,
		Acc: acc, EM: em, F1: f1, Metric: MetricQA, Counts: c, WallMillis: wall}
}

func summaryFixture() []Record {
	pref := engine.Counts{LLMCalls: 4, StepCalls: 3, JudgeCalls: 1, LocalRetrievals: 2, WebRetrievals: 1, UsedRetrievals: 2, UsedLocalRetrievals: 1, PromptTokens: 900, CachedPromptTokens: 600, OutputTokens: 90}
	mix := engine.Counts{LLMCalls: 3, StepCalls: 3, LocalRetrievals: 2, WebRetrievals: 2, UsedRetrievals: 4, UsedLocalRetrievals: 2, PromptTokens: 1200, CachedPromptTokens: 700, OutputTokens: 80}
	half := 0.5
	recs := []Record{
		rec("hotpot", engine.StrategyPrefRAG, 0, 1, 1, 1, pref, 120),
		rec("hotpot", engine.StrategyPrefRAG, 1, 1, 0, 0.5, pref, 300),
		rec("hotpot", engine.StrategyPrefRAG, 2, 0, 0, 0, pref, 200),
		rec("hotpot", engine.StrategyReActMix, 0, 1, 1, 1, mix, 100),
		rec("hotpot", engine.StrategyReActMix, 1, 0, 0, 0.25, mix, 110),
		rec("hotpot", engine.StrategyReActMix, 2, 0, 0, 0, mix, 90),
		rec("hotpot", engine.StrategyNoRetrieval, 0, 0, 0, 0, engine.Counts{LLMCalls: 1, StepCalls: 1}, 10),
		rec("bioasq", engine.StrategyPrefRAG, 0, 1, 0, 0.5, pref, 50),
		rec("bioasq", engine.StrategyPrefRAG, 1, 1, 1, 1, pref, 60),
		rec("bioasq", engine.StrategyVanillaLocal, 0, 0, 0, 0, engine.Counts{LLMCalls: 1, LocalRetrievals: 1, UsedRetrievals: 1, UsedLocalRetrievals: 1}, 20),
		rec("bioasq", engine.StrategyVanillaLocal, 1, 1, 1, 1, engine.Counts{LLMCalls: 1, LocalRetrievals: 1, UsedRetrievals: 1, UsedLocalRetrievals: 1}, 30),
	}
	recs[0].SupportRecall = &half
	recs[0].Forced = true
	recs[1].Counts.Refinements = 2
	for i := 7; i < len(recs); i++ {
		recs[i].Metric = MetricYesNo
	}
	return recs
}

func TestSummarizeFigures(t *testing.T) {
	s := Summarize(summaryFixture())
	if len(s.Datasets) != 2 || s.Datasets[0].Name != "bioasq" || !s.Datasets[0].YesNo || s.Datasets[1].YesNo {
		t.Fatalf("datasets %+v", s.Datasets)
	}
	hot := s.Datasets[1]
	var names []string
	for _, r := range hot.Rows {
		names = append(names, r.Strategy)
	}
	if len(names) != 3 || names[0] != engine.StrategyNoRetrieval || names[1] != engine.StrategyReActMix || names[2] != engine.StrategyPrefRAG {
		t.Fatalf("row order %q, want the paper's", names)
	}
	p := hot.Rows[2]
	// Acc 2/3, EM 1/3, F1 (1+0.5+0)/3; Avg of the rounded three.
	if p.Acc != 66.67 || p.EM != 33.33 || p.F1 != 50 || p.Avg != 50 {
		t.Errorf("PrefRAG %v/%v/%v avg %v", p.Acc, p.F1, p.EM, p.Avg)
	}
	if p.TotalLocal != 6 || p.TotalWeb != 3 || p.Total != 9 || p.UsedLocal != 3 || p.Used != 6 || p.LLMCalls != 12 || p.JudgeCalls != 3 {
		t.Errorf("PrefRAG counts %+v", p)
	}
	// Walls 120, 200, 300: p50 is the 2nd, p90 the 3rd (nearest rank).
	if p.WallP50 != 200 || p.WallP90 != 300 || p.Forced != 1 || p.SupportN != 1 || p.SupportRecall != 50 {
		t.Errorf("PrefRAG wall %d/%d forced %d recall %v over %d", p.WallP50, p.WallP90, p.Forced, p.SupportRecall, p.SupportN)
	}
	m := hot.Rows[1]
	if m.Acc != 33.33 || m.F1 != 41.67 || m.EM != 33.33 || m.Avg != 36.11 {
		t.Errorf("ReAct-Mix %v/%v/%v avg %v", m.Acc, m.F1, m.EM, m.Avg)
	}
}

func TestNearestRank(t *testing.T) {
	v := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if nearestRank(v, 0.5) != 5 || nearestRank(v, 0.9) != 9 || nearestRank(v[:1], 0.9) != 1 || nearestRank(nil, 0.5) != 0 {
		t.Error("nearest rank")
	}
}

// TestSummaryMarkdownGolden compares the rendered summary with
// testdata/summary.golden.md; run with -update to rewrite it.
func TestSummaryMarkdownGolden(t *testing.T) {
	seed := 7
	infos := map[string]RunInfo{"hotpot": {Dataset: "hotpot", Data: "/data/hotpot.jsonl", Settings: engine.RunConfig{Settings: engine.Settings{Model: "llama3.1:8b",
		K: 5, MaxSteps: 3, MaxReflections: 1, JudgeFirst: true, NumCtx: 16384, Temperature: 0.1, TopP: 0.9, Seed: &seed,
		AnswerStyle: "concise", Web: "auto"}, Wiring: engine.Wiring{JudgeModel: "llama3.1:8b", LLM: "ollama", Corpora: []string{"hotpot"}, WebEngine: "searxng"}}, Holdout: &Holdout{Fraction: 0.5, Seed: 1}, PromptsHash: "abc"}}
	got := Summarize(summaryFixture()).Markdown(infos)
	path := filepath.Join("testdata", "summary.golden.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("summary differs from %s (run with -update after checking):\n%s", path, got)
	}
	if empty := (Summary{}).Markdown(nil); empty == "" {
		t.Error("an empty summary renders nothing")
	}
}

func TestWriteSummaryFromRecordFiles(t *testing.T) {
	dir := t.TempDir()
	for _, r := range summaryFixture() {
		w, err := openRecordWriter(RecordFile(dir, r.Strategy))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.write(r); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	s, md, err := WriteSummary(dir, nil)
	if err != nil || len(s.Datasets) != 2 {
		t.Fatalf("%v %+v", err, s)
	}
	for _, f := range []string{"summary.md", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if want := Summarize(summaryFixture()).Markdown(nil); md != want {
		t.Error("the summary from files differs from the summary of the same records")
	}
}
