package e2e

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// keptCalibration reads the calibration file of a world: factor per
// model key and kind.
func keptCalibration(t *testing.T, w *world) map[string]map[string]float64 {
	t.Helper()
	var kept struct {
		Models map[string]struct {
			Kinds map[string]struct{ Factor float64 }
		} `json:"models"`
	}
	b, err := os.ReadFile(filepath.Join(w.home, "data", "calibration.json"))
	if err != nil || json.Unmarshal(b, &kept) != nil {
		t.Fatalf("calibration file: %v\n%s", err, b)
	}
	out := map[string]map[string]float64{}
	for m, k := range kept.Models {
		out[m] = map[string]float64{}
		for kind, c := range k.Kinds {
			out[m][kind] = c.Factor
		}
	}
	return out
}

// TestCalibrationKeptAcrossProcesses: the calibration learnt from an
// Ollama server's prompt_eval_count (a tokenizer 1.4 times denser than the
// estimate) is kept for the model and the kind of text: the next process
// starts from it, and a prompt that fits --num-ctx 2048 by the estimate
// but not in the model's tokens is refused before it is sent, with a
// sentence saying what to change.
func TestCalibrationKeptAcrossProcesses(t *testing.T) {
	answer := "Thought: I know.\nFinal Answer: Nothing more.\nSelf-Evaluation: CORRECT\nExplanation: known"
	w := newWorld(t, &fakellm.Script{Steps: []string{answer, answer}}, fakellm.CountByScript(), fakellm.TokenRatio(1.4))
	out, errOut, code := w.run(w.noWebArgs("--model", "fake-model", "--json", "What did the Carlsberg Laboratory study?")...)
	if code != 0 {
		t.Fatalf("run 1: exit %d\n%s\n%s", code, out, errOut)
	}
	f := keptCalibration(t, w)["ollama fake-model"]["prose"]
	if math.Abs(f-1.4) > 0.15*1.4 { // the estimate is within 15% on any prompt
		t.Fatalf("kept %v, want the fake-model's prose factor of about 1.4", keptCalibration(t, w))
	}
	// About 1,400 tokens by the estimate (fits 2048 with its reply),
	// about 2,000 in the model's tokens.
	before := len(w.llm.Generations())
	long := "Summarise this: " + strings.Repeat("word ", 1100) + "?"
	_, errOut, code = w.run(w.noWebArgs("--model", "fake-model", "--num-ctx", "2048", long)...)
	if code == 0 {
		t.Errorf("run 2 exited 0; want the prompt refused")
	}
	if n := len(w.llm.Generations()) - before; n != 0 {
		t.Errorf("run 2 sent %d prompts; the kept calibration should have refused it", n)
	}
	if !strings.Contains(errOut, "does not fit the context of 2048 tokens") || !strings.Contains(errOut, "--num-ctx") {
		t.Errorf("stderr does not say the prompt does not fit:\n%s", errOut)
	}
}

// Issue 27: a calibration one turn cannot poison. A turn that pastes rows
// of figures (read by the model's tokenizer twice as densely as prefrag
// estimates digits) is kept as the figures' calibration only; the next
// process's English turn, whose prompt fits the context in the model's
// tokens, is sent and answered.
func TestCalibrationFiguresThenEnglish(t *testing.T) {
	answer := "Thought: I know.\nFinal Answer: Nothing more.\nSelf-Evaluation: CORRECT\nExplanation: known"
	w := newWorld(t, &fakellm.Script{Steps: []string{answer, answer}}, fakellm.DenseScripts(2))
	_, texts := fakellm.Corpus("figures")
	figures := "Which year had the most rain? " + texts["01-gauge.txt"] + texts["04-reservoir.txt"]
	if _, errOut, code := w.run(w.noWebArgs("--model", "fake-model", "--num-ctx", "4096", figures)...); code != 0 {
		t.Fatalf("the figures turn: exit %d: %s", code, errOut)
	}
	kept := keptCalibration(t, w)["ollama fake-model"]
	if kept["figures"] < 1.3 || kept["prose"] > 1.1 {
		t.Fatalf("kept %v: want figures denser, prose untouched", kept)
	}
	// About 1,270 tokens: fits 2048 with its reply, but not at the
	// figures' factor.
	before := len(w.llm.Generations())
	english := "Summarise this: " + strings.Repeat("word ", 950) + "?"
	_, errOut, code := w.run(w.noWebArgs("--model", "fake-model", "--num-ctx", "2048", english)...)
	if code != 0 || len(w.llm.Generations())-before != 1 {
		t.Fatalf("the English turn that fits was not sent: exit %d, %d prompts: %s", code, len(w.llm.Generations())-before, errOut)
	}
}
