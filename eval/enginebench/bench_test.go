package enginebench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/llm"
)

func TestOracleTrajectoryThroughTheEngine(t *testing.T) {
	qs := Synthetic(3, 1)
	b, err := New(Config{Questions: qs, Holdout: -1})
	if err != nil {
		t.Fatal(err)
	}
	var events []engine.Event
	for i, q := range qs {
		events = events[:0]
		res, err := b.eng.Run(context.Background(), engine.Request{SessionID: "s", Question: q.Text, Settings: b.s.Settings, Wiring: b.s.Wiring,
			Emit: func(ev engine.Event) {
				if ev.Type() != engine.EventToken {
					events = append(events, ev)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Answer != q.Gold[0] || res.Label != "CORRECT" {
			t.Errorf("question %d: answer %q label %q, want %q CORRECT", i, res.Answer, res.Label, q.Gold[0])
		}
		c := res.Counts
		// Two searches, each judged (true: each adds a supporting
		// paragraph), then the answer: nothing goes to the web.
		if c.StepCalls != 3 || c.JudgeCalls != 2 || c.LocalRetrievals != 2 || c.WebRetrievals != 0 || c.UsedLocalRetrievals != 2 {
			t.Errorf("question %d counts %+v", i, c)
		}
		var queries []string
		for _, ev := range events {
			if a, ok := ev.Payload.(engine.Action); ok {
				queries = append(queries, a.Query)
			}
		}
		if len(queries) != 2 || queries[0] != q.Text || queries[1] != q.Paragraphs[1].Title {
			t.Errorf("question %d queries %q, want the question then %q", i, queries, q.Paragraphs[1].Title)
		}
	}
}

func TestOracleSwitchesToTheWebForHeldOutParagraphs(t *testing.T) {
	qs := Synthetic(20, 2)
	b, err := New(Config{Questions: qs, Holdout: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range qs {
		if err := b.RunQuestion(context.Background(), i); err != nil {
			t.Fatal(err)
		}
	}
	r := b.Result()
	if r.Web == 0 || r.Judge == 0 {
		t.Errorf("with every supporting paragraph on the web side: %d web retrievals, %d judge calls", r.Web, r.Judge)
	}
}

func TestOracleReplies(t *testing.T) {
	q := eval.Question{Text: "Who founded Rush?", Gold: []string{"Geddy Lee"},
		Paragraphs: []eval.Paragraph{{Title: "Rush (band)", Text: "Rush was founded by Geddy Lee.", Supporting: true}}}
	o := NewOracle([]eval.Question{q}, 1)
	answer := "Answer the question below using the documents where they help.\n\nDocuments:\n[1] title: Rush (band)\ncontent: Rush was founded by Geddy Lee.\n\nQuestion: Who founded Rush?\n\nReply in exactly this format:\nFinal Answer: the most concise answer"
	if got := o.Reply(answer, false); got != "Final Answer: Geddy Lee" {
		t.Errorf("answer prompt: %q", got)
	}
	noDocs := strings.Replace(answer, "content: Rush was founded by Geddy Lee.", "content: A band.", 1)
	if got := o.Reply(noDocs, false); got != "Final Answer: "+Unknown {
		t.Errorf("answer prompt without the fact: %q", got)
	}
	// The gold inside the question itself does not count as evidence.
	q2 := eval.Question{Text: "Is Geddy Lee in Rush or Toto?", Gold: []string{"Rush"}}
	o2 := NewOracle([]eval.Question{q2}, 1)
	step := "Answer the question below...\nAction: the tool to use, exactly one of [Search_Local, Search_Web], written exactly as listed\n\nBegin!\n\nQuestion: Is Geddy Lee in Rush or Toto?\n"
	if got := o2.Reply(step, false); !strings.Contains(got, "Action: Search_Local\nAction Input: Is Geddy Lee in Rush or Toto?") {
		t.Errorf("first step: %q", got)
	}
	step += "Thought: I need to look this up.\nAction: Search_Local\nAction Input: x\n\nObservation: [1] title: Toto\ncontent: Toto is a band.\n"
	if got := o2.Reply(step, false); !strings.Contains(got, "Final Answer: "+Unknown+"\nSelf-Evaluation: INCORRECT") {
		t.Errorf("answer without evidence: %q", got)
	}
	judge := "Original question: Who founded Rush?\n\nInformation already obtained:\n(nothing yet)\n\nNew information:\n[1] title: Rush (band)\ncontent: Rush was founded by Geddy Lee.\n"
	var v struct {
		Analysis string `json:"analysis"`
		Status   bool   `json:"status"`
	}
	if err := json.Unmarshal([]byte(o.Reply(judge, true)), &v); err != nil || !v.Status || v.Analysis == "" {
		t.Errorf("judge: %+v %v", v, err)
	}
	stale := strings.Replace(judge, "Geddy Lee.", "three musicians.", 1)
	stale = strings.Replace(stale, "(nothing yet)", "[1] title: Rush (band)\ncontent: three musicians.", 1)
	if err := json.Unmarshal([]byte(o.Reply(stale, true)), &v); err != nil || v.Status {
		t.Errorf("judge on repeated documents: %+v %v", v, err)
	}
	forced := step + "\nThe step limit has been reached.\nThought: I now know the final answer to the original question\nFinal Answer:"
	if got := o2.Reply(forced, false); !strings.HasPrefix(got, " "+Unknown+"\nSelf-Evaluation:") {
		t.Errorf("forced: %q", got)
	}
}

func TestOracleGenerateStreamsAndStops(t *testing.T) {
	q := eval.Question{Text: "Q?", Gold: []string{"A"}}
	o := NewOracle([]eval.Question{q}, 1)
	var chunks []string
	resp, err := o.Generate(context.Background(), llm.Request{Purpose: llm.PurposeStep, Prompt: "Begin!\n\nQuestion: Q?\n", Stop: []string{"Action Input:"}},
		func(d string) { chunks = append(chunks, d) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(resp.Text, "Action Input") || strings.Join(chunks, "") != resp.Text || len(chunks) < 3 {
		t.Errorf("text %q chunks %q", resp.Text, chunks)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Generate(ctx, llm.Request{Prompt: "x"}, nil); err == nil {
		t.Error("a cancelled context was ignored")
	}
}

// TestStepPromptsAreAppendOnly holds the engine to DESIGN.md's speed rule:
// every reasoning prompt starts with the whole previous one.
func TestStepPromptsAreAppendOnly(t *testing.T) {
	for _, strategy := range []string{engine.StrategyPrefRAG, engine.StrategyReAct, engine.StrategyReActMix, engine.StrategyPrefRAGNoJudge} {
		s := engine.DefaultRunConfig()
		s.Model, s.Strategy = "oracle", strategy
		r, err := Measure(context.Background(), Config{Questions: Synthetic(20, 3), Settings: s, Hops: 3})
		if err != nil {
			t.Fatal(err)
		}
		if r.Transitions < 40 || r.PrefixReuse != 1 || r.PrefixReuseMin != 1 {
			t.Errorf("%s: %d transitions, prefix reuse mean %v min %v; want 1", strategy, r.Transitions, r.PrefixReuse, r.PrefixReuseMin)
		}
		if r.CachedShare <= 0 || r.CachedShare > 1 {
			t.Errorf("%s: cached share %v", strategy, r.CachedShare)
		}
		if r.Runs != 20 || r.Overhead != r.Wall-r.Model-r.Retrieval || r.AllocsPerQuestion <= 0 || r.LLMCalls < r.Runs {
			t.Errorf("%s: result %+v", strategy, r)
		}
	}
}

func TestReuseStats(t *testing.T) {
	var r reuseStats
	r.add([]string{"abcd", "abcdXY", "abQ"}, []string{"XY", "Q", ""})
	mean, minimum, cached, n := r.result()
	// abcd→abcdXY reuses 4/4; abcdXY→abQ reuses 2/6. Cached: prefix of
	// "abcdXY" and "abcdXY" is 6 of 6; of "abcdXYQ" and "abQ" 2 of 3.
	near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
	if n != 2 || !near(mean, (1+2.0/6)/2) || !near(minimum, 2.0/6) || !near(cached, (1+2.0/3)/2) {
		t.Errorf("mean %v min %v cached %v n %d", mean, minimum, cached, n)
	}
}

func TestSyntheticIsDeterministic(t *testing.T) {
	a, b := Synthetic(5, 9), Synthetic(5, 9)
	for i := range a {
		if a[i].Text != b[i].Text || len(a[i].Paragraphs) != 10 || len(a[i].Supporting()) != 2 {
			t.Fatalf("question %d: %+v", i, a[i])
		}
	}
	if Synthetic(1, 1)[0].Text == Synthetic(1, 2)[0].Text {
		t.Error("the seed changes nothing")
	}
}

func FuzzOracleReply(f *testing.F) {
	f.Add("Begin!\n\nQuestion: Q?\nThought: x\nAction: Search_Engine\nAction Input: Q?\n\nObservation: [1] title: T\ncontent: A\n", false)
	f.Add("Original question: Q?\n\nNew information:\n[1] title: T\ncontent: A\n", true)
	f.Add("exactly one of [", false)
	o := NewOracle([]eval.Question{{Text: "Q?", Gold: []string{"A"}, Paragraphs: []eval.Paragraph{{Title: "T", Text: "A", Supporting: true}}}}, 2)
	f.Fuzz(func(t *testing.T, prompt string, judge bool) {
		out := o.Reply(prompt, judge)
		if judge && !json.Valid([]byte(out)) {
			t.Fatalf("judge reply %q is not JSON", out)
		}
		if !judge && out == "" {
			t.Fatal("empty reply")
		}
	})
}

// benchQuestions are the HotpotQA pool's questions when ../shared/data is
// present, else synthetic ones.
func benchQuestions(b *testing.B) []eval.Question {
	wd, _ := os.Getwd()
	for dir := wd; filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "data", "multihop", "hotpotqa-ircot-dev500", "dev_subsampled.jsonl")
		if ds, err := eval.LoadFile(p); err == nil {
			return ds.Questions
		}
	}
	b.Log("../shared/data absent: synthetic questions")
	return Synthetic(500, 1)
}

func benchmarkEngine(b *testing.B, strategy string, noTokens bool) {
	qs := benchQuestions(b)
	s := engine.DefaultRunConfig()
	s.Model, s.Strategy = "oracle", strategy
	bench, err := New(Config{Questions: qs, Settings: s, NoTokens: noTokens})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := bench.RunQuestion(ctx, i); err != nil {
			b.Fatal(err)
		}
		i++
	}
	r := bench.Result()
	b.ReportMetric(float64(r.OverheadPerCall.Nanoseconds())/1e3, "overhead-µs/llm-call")
	b.ReportMetric(float64(r.OverheadPerQuestion.Nanoseconds())/1e3, "overhead-µs/question")
	b.ReportMetric(r.PrefixReuse, "prefix-reuse")
	b.ReportMetric(r.CachedShare, "cached-share")
}

// BenchmarkEngineQuestion answers one question per iteration with PrefRAG,
// a zero-latency in-process model and in-memory BM25 sources; ns/op
// includes the model and the searches, overhead-µs/llm-call does not.
func BenchmarkEngineQuestion(b *testing.B) {
	b.Run("prefrag", func(b *testing.B) { benchmarkEngine(b, engine.StrategyPrefRAG, false) })
	b.Run("prefrag-no-tokens", func(b *testing.B) { benchmarkEngine(b, engine.StrategyPrefRAG, true) })
	b.Run("react-mix", func(b *testing.B) { benchmarkEngine(b, engine.StrategyReActMix, false) })
}

var _ engine.Source = (*timedSource)(nil)
