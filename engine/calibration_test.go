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

// memKeeper keeps a calibration factor in memory, as the app's file does
// across processes.
type memKeeper struct {
	factor float64
	kept   []float64
}

func (k *memKeeper) Kept() float64       { return k.factor }
func (k *memKeeper) Keep(factor float64) { k.factor = factor; k.kept = append(k.kept, factor) }

// denseLLM is a scripted model whose server reports prompt counts ratio
// times the estimate (a tokenizer denser than four runes a token).
type denseLLM struct {
	*scriptLLM
	ratio float64
}

func (d denseLLM) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	resp, err := d.scriptLLM.Generate(ctx, req, onToken)
	resp.PromptTokens = int(float64(EstimateTokens(req.Prompt)) * d.ratio)
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

// About 1,550 tokens by runes/4: fits 2048 with a 256-token reply, not at
// 1.4 times that.
var calibrationQuestion = strings.Repeat("word ", 1000)

// Run 1 learns from the server's counts that the model's tokens are 1.4
// times the estimate and keeps the factor; run 2, on a new engine whose
// server reports nothing, starts from it: a prompt that fits by runes/4
// but not in the model's tokens is not sent. Without a keeper it is.
func TestCalibrationKeptAcrossRuns(t *testing.T) {
	answer := reply{text: "Thought: x\nFinal Answer: y\nSelf-Evaluation: CORRECT"}
	k := &memKeeper{}
	h1 := newHarness(t)
	h1.llm.steps = []reply{answer}
	if err := runWith(t, h1, denseLLM{h1.llm, 1.4}, k, "A short question about word counts? "+strings.Repeat("context ", 200), 0); err != nil {
		t.Fatal(err)
	}
	if len(k.kept) != 1 || math.Abs(k.kept[0]-1.4) > 0.02 {
		t.Fatalf("kept %v, want about 1.4", k.kept)
	}
	for _, tc := range []struct {
		name   string
		keeper CalibrationKeeper
		sent   bool
	}{
		{"kept factor: not sent", k, false},
		{"no keeper: sent", nil, true},
		{"absurd factor ignored: sent", &memKeeper{factor: 1e9}, true},
		{"NaN ignored: sent", &memKeeper{factor: math.NaN()}, true},
		{"below 1 ignored: sent", &memKeeper{factor: 0.3}, true},
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

// What a run keeps: a larger ratio at once, a smaller one a quarter of
// the way, bounded to [1, 1.5]; an absurd count is not kept, and a run
// that measured nothing keeps nothing new.
func TestCalibrationKeptBounded(t *testing.T) {
	answer := reply{text: "Thought: x\nFinal Answer: y\nSelf-Evaluation: CORRECT"}
	q := "A question? " + strings.Repeat("context ", 400)
	for _, tc := range []struct {
		name     string
		kept     float64
		ratio    float64
		want     float64 // 0: Keep not called
		withSize bool
	}{
		{"first measure", 0, 1.2, 1.2, true},
		{"larger replaces", 1.1, 1.3, 1.3, true},
		{"smaller decays", 1.5, 1.0, 1.375, true},
		{"capped", 0, 2.5, 1.5, true},
		{"below the estimate kept as 1", 0, 0.6, 1, true},
		{"absurd count not kept", 1.2, 40, 0, true},
		{"nothing measured", 1.2, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.llm.steps = []reply{answer}
			k := &memKeeper{factor: tc.kept}
			if err := runWith(t, h, denseLLM{h.llm, tc.ratio}, k, q, 0); err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == 0 && len(k.kept) != 0:
				t.Errorf("kept %v, want nothing", k.kept)
			case tc.want != 0 && (len(k.kept) != 1 || math.Abs(k.kept[0]-tc.want) > 0.02):
				t.Errorf("kept %v, want %.3f", k.kept, tc.want)
			}
		})
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
	for _, f := range k.kept {
		if f > 1.2 {
			t.Errorf("kept %v: the judge's counts taken for the reasoning model's", k.kept)
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
