package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// TestCalibrationKeptAcrossProcesses: the token calibration learnt from an
// Ollama server's prompt_eval_count (a tokenizer 1.4 times denser than
// runes/4) is kept for the model: the next process starts from it, and a
// prompt that fits --num-ctx 2048 by runes/4 but not in the model's tokens
// is refused before it is sent, with a sentence saying what to change.
func TestCalibrationKeptAcrossProcesses(t *testing.T) {
	answer := "Thought: I know.\nFinal Answer: Nothing more.\nSelf-Evaluation: CORRECT\nExplanation: known"
	w := newWorld(t, &fakellm.Script{Steps: []string{answer, answer}}, fakellm.TokenRatio(1.4))
	out, errOut, code := w.run(w.noWebArgs("--model", "fake-model", "--json", "What did the Carlsberg Laboratory study?")...)
	if code != 0 {
		t.Fatalf("run 1: exit %d\n%s\n%s", code, out, errOut)
	}
	var kept struct {
		Models map[string]struct{ Factor float64 } `json:"models"`
	}
	b, err := os.ReadFile(filepath.Join(w.home, "data", "calibration.json"))
	if err != nil || json.Unmarshal(b, &kept) != nil {
		t.Fatalf("calibration file: %v\n%s", err, b)
	}
	f := kept.Models["ollama fake-model"].Factor
	if f < 1.35 || f > 1.5 {
		t.Fatalf("kept %s, want the fake-model's factor of about 1.4", b)
	}
	// About 1,550 tokens by runes/4 (fits 2048 with its reply), about
	// 2,200 in the model's tokens.
	before := len(w.llm.Generations())
	long := "Summarise this: " + strings.Repeat("word ", 1000) + "?"
	_, errOut, code = w.run(w.noWebArgs("--model", "fake-model", "--num-ctx", "2048", long)...)
	if code == 0 {
		t.Errorf("run 2 exited 0; want the prompt refused")
	}
	if n := len(w.llm.Generations()) - before; n != 0 {
		t.Errorf("run 2 sent %d prompts; the kept calibration should have refused it", n)
	}
	if !strings.Contains(errOut, "does not fit the context of 2048 tokens") {
		t.Errorf("stderr does not say the prompt does not fit:\n%s", errOut)
	}
}
