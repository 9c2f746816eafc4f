package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/llm"
)

// memKeeper keeps the calibration in memory, as the app's file does
// across processes.
type memKeeper struct {
	kinds map[llm.TextKind]KindCalibration
	kept  []map[llm.TextKind]KindCalibration
}

func prose(f float64) *memKeeper {
	return &memKeeper{kinds: map[llm.TextKind]KindCalibration{llm.KindProse: {Factor: f}}}
}

func (k *memKeeper) Kept() map[llm.TextKind]KindCalibration { return k.kinds }
func (k *memKeeper) Keep(m map[llm.TextKind]KindCalibration) {
	if k.kinds == nil {
		k.kinds = map[llm.TextKind]KindCalibration{}
	}
	for kind, c := range m {
		k.kinds[kind] = c
	}
	k.kept = append(k.kept, m)
}

// denseLLM is a scripted model whose server reports prompt counts ratio
// times the estimate (a tokenizer denser than the estimate).
type denseLLM struct {
	*scriptLLM
	ratio float64
}

func (d denseLLM) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	resp, err := d.scriptLLM.Generate(ctx, req, onToken)
	resp.PromptTokens = int(float64(llm.EstimateTokens(req.Prompt)) * d.ratio)
	return resp, err
}

// runWith runs q on a new engine (a new process, as far as the run can
// tell) whose model is m, with keeper k.
func runWith(t *testing.T, h *harness, m LLM, k CalibrationKeeper, q string, numCtx int) error {
	t.Helper()
	h.eng, _ = New(Config{LLM: m, Sources: []Source{h.local}})
	s := DefaultSettings()
	s.Model = "script"
	if numCtx > 0 {
		s.NumCtx = numCtx
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := h.eng.Run(ctx, Request{SessionID: "s1", Question: q, Settings: s, Emit: h.rec.emit, Calibration: k})
	return err
}

// An English question whose step prompt fits 2048 tokens with its reply
// by the estimate, not at 1.4 times it.
var calibrationQuestion = strings.Repeat("word ", 1000)

// Run 1 learns from the server's counts that the model's tokens are 1.4
// times the estimate of prose and keeps the factor; run 2, on a new engine
// whose server reports nothing, starts from it: a prompt that fits by the
// estimate but not in the model's tokens is not sent. Without a keeper it
// is, and so it is when the server read a larger prose prompt whole at a
// size that fits.
func TestCalibrationKeptAcrossRuns(t *testing.T) {
	answer := reply{text: "Thought: x\nFinal Answer: y\nSelf-Evaluation: CORRECT"}
	k := &memKeeper{}
	h1 := newHarness(t)
	h1.llm.steps = []reply{answer}
	if err := runWith(t, h1, denseLLM{h1.llm, 1.4}, k, "A short question about word counts? "+strings.Repeat("context ", 200), 0); err != nil {
		t.Fatal(err)
	}
	if len(k.kept) != 1 || math.Abs(k.kept[0][llm.KindProse].Factor-1.4) > 0.02 {
		t.Fatalf("kept %v, want prose at about 1.4", k.kept)
	}
	accepted := &memKeeper{kinds: map[llm.TextKind]KindCalibration{llm.KindProse: {Factor: 1.4, AcceptedEstimate: 2000, AcceptedTokens: 1700}}}
	for _, tc := range []struct {
		name   string
		keeper CalibrationKeeper
		sent   bool
	}{
		{"kept factor: not sent", k, false},
		{"no keeper: sent", nil, true},
		{"absurd factor ignored: sent", prose(1e9), true},
		{"NaN ignored: sent", prose(math.NaN()), true},
		{"another kind's factor: sent", &memKeeper{kinds: map[llm.TextKind]KindCalibration{llm.KindFigures: {Factor: 2.2}}}, true},
		{"accepted at that size: sent", accepted, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if tc.sent {
				h.llm.steps = []reply{answer}
			}
			err := runWith(t, h, h.llm, tc.keeper, calibrationQuestion, 2048)
			if sent := len(h.llm.prompts(llm.PurposeStep)) > 0; sent != tc.sent {
				t.Fatalf("sent %v, want %v (err %v)", sent, tc.sent, err)
			}
			if !tc.sent && !errors.Is(err, ErrPromptTooLarge) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// What a run keeps: its measure when nothing was kept; else the kept
// factor moved at most 0.15 towards it; within [0.4, 2.5]; an absurd
// count is not kept, and a run that measured nothing keeps nothing.
func TestCalibrationKeptBounded(t *testing.T) {
	answer := reply{text: "Thought: x\nFinal Answer: y\nSelf-Evaluation: CORRECT"}
	q := "A question? " + strings.Repeat("context ", 400)
	for _, tc := range []struct {
		name  string
		kept  float64
		ratio float64
		want  float64 // 0: Keep not called
	}{
		{"first measure", 0, 1.2, 1.2},
		{"larger moves a step", 1.1, 1.9, 1.25},
		{"smaller moves a step", 1.5, 1.0, 1.35},
		{"close: taken", 1.0, 1.1, 1.1},
		{"capped", 0, 3.5, 2.5},
		{"below the estimate", 0, 0.6, 0.6},
		{"absurd count not kept", 1.2, 40, 0},
		{"nothing measured", 1.2, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.llm.steps = []reply{answer}
			k := &memKeeper{}
			if tc.kept > 0 {
				k = prose(tc.kept)
			}
			if err := runWith(t, h, denseLLM{h.llm, tc.ratio}, k, q, 0); err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == 0 && len(k.kept) != 0:
				t.Errorf("kept %v, want nothing", k.kept)
			case tc.want != 0 && (len(k.kept) != 1 || math.Abs(k.kept[0][llm.KindProse].Factor-tc.want) > 0.02):
				t.Errorf("kept %v, want %.3f", k.kept, tc.want)
			}
		})
	}
}

// One outlier run moves the kept factor a bounded step, and ordinary runs
// bring it back.
func TestCalibrationOutlierReturns(t *testing.T) {
	answer := reply{text: "Thought: x\nFinal Answer: y\nSelf-Evaluation: CORRECT"}
	q := "A question? " + strings.Repeat("context ", 400)
	k := prose(1.0)
	var seen []float64
	for _, ratio := range []float64{2.4, 1.0, 1.0} {
		h := newHarness(t)
		h.llm.steps = []reply{answer}
		if err := runWith(t, h, denseLLM{h.llm, ratio}, k, q, 0); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, k.kinds[llm.KindProse].Factor)
	}
	if math.Abs(seen[0]-1.15) > 0.02 || math.Abs(seen[2]-1.0) > 0.02 {
		t.Errorf("kept factors %v: want 1.15 after the outlier, back to 1.0 after two ordinary runs", seen)
	}
}

// A figure-heavy run keeps its measure for figures only: the next English
// run counts prose as before and sends a prompt that fits.
func TestCalibrationPerKind(t *testing.T) {
	answer := reply{text: "Thought: x\nFinal Answer: y\nSelf-Evaluation: CORRECT"}
	k := prose(1.0)
	h1 := newHarness(t)
	h1.llm.steps = []reply{answer}
	figures := "Compare these figures: " + strings.Repeat("2021-07-04 | 3.076 | 244.5 | 61.7 | 22.0\n", 60)
	if err := runWith(t, h1, denseLLM{h1.llm, 1.5}, k, figures, 0); err != nil {
		t.Fatal(err)
	}
	if f := k.kinds[llm.KindFigures].Factor; math.Abs(f-1.5) > 0.02 || k.kinds[llm.KindProse].Factor != 1.0 {
		t.Fatalf("kept %v: want figures at 1.5, prose untouched at 1.0", k.kinds)
	}
	h2 := newHarness(t)
	h2.llm.steps = []reply{answer}
	if err := runWith(t, h2, h2.llm, k, calibrationQuestion, 2048); err != nil || len(h2.llm.prompts(llm.PurposeStep)) != 1 {
		t.Errorf("the English prompt that fits was not sent: %v", err)
	}
}

// Only the reasoning model's counts are kept for it: a judge on another
// client may tokenize differently.
func TestCalibrationKeepsTheReasoningModelOnly(t *testing.T) {
	h := newHarness(t)
	h.local.answers["rivers"] = []Document{doc("local:wiki", "r1", "Rivers", strings.Repeat("The river runs. ", 300))}
	h.llm.steps = []reply{
		{text: "Thought: search.\nAction: Search_Engine\nAction Input: rivers"},
		{text: "Thought: x\nFinal Answer: y [1]\nSelf-Evaluation: CORRECT"},
	}
	judge := &scriptLLM{t: t, judges: []reply{judgeJSON(true, "useful")}}
	k := &memKeeper{}
	h.eng, _ = New(Config{LLM: h.llm, Judge: denseLLM{judge, 1.45}, Sources: []Source{h.local, h.web}})
	s := DefaultSettings()
	s.Model, s.Web = "script", WebAuto
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.eng.Run(ctx, Request{SessionID: "s1", Question: "rivers?", Settings: s, Emit: h.rec.emit, Calibration: k}); err != nil {
		t.Fatal(err)
	}
	if len(judge.reqs) == 0 {
		t.Fatal("the judge was not called")
	}
	for _, m := range k.kept {
		for _, c := range m {
			if c.Factor > 1.2 {
				t.Errorf("kept %v: the judge's counts taken for the reasoning model's", k.kept)
			}
		}
	}
}

// uncomparableLLM cannot be compared with ==.
type uncomparableLLM struct {
	*scriptLLM
	tags []string
}

func TestSameLLMUncomparable(t *testing.T) {
	a, b := uncomparableLLM{scriptLLM: &scriptLLM{}}, uncomparableLLM{scriptLLM: &scriptLLM{}}
	if sameLLM(a, b) {
		t.Error("two uncomparable clients are the same")
	}
	s := &scriptLLM{}
	if !sameLLM(s, s) || sameLLM(s, &scriptLLM{}) || sameLLM(a, s) {
		t.Error("pointer clients compared wrong")
	}
}
