package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
)

// The calibration file keeps, per backend and model, a calibration per
// kind of text: a keeper made later (a new process) reads what an earlier
// one kept; another model has none; keeping one kind leaves the others;
// absurd, damaged or old (one factor per model) entries are none; the
// file keeps at most maxCalibrations models.
func TestCalibrationFileKeepsPerModelAndKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), CalibrationFile)
	keeper := func(key string) *ModelCalibration { return &ModelCalibration{Path: path, Key: key} }
	factor := func(key string, kind llm.TextKind) float64 { return keeper(key).Kept()[kind].Factor }
	kc := func(f float64) map[llm.TextKind]engine.KindCalibration {
		return map[llm.TextKind]engine.KindCalibration{llm.KindProse: {Factor: f}}
	}
	if k := keeper("ollama m1").Kept(); k != nil {
		t.Fatalf("no file: kept %v", k)
	}
	keeper("ollama m1").Keep(kc(1.3))
	keeper("ollama m1").Keep(map[llm.TextKind]engine.KindCalibration{llm.KindCJK: {Factor: 0.6, AcceptedEstimate: 3000, AcceptedTokens: 1800}})
	keeper("llamacpp m1").Keep(kc(1.1))
	if f := factor("ollama m1", llm.KindProse); f != 1.3 {
		t.Errorf("ollama m1 prose: %v, want 1.3", f)
	}
	if c := keeper("ollama m1").Kept()[llm.KindCJK]; c.Factor != 0.6 || c.AcceptedEstimate != 3000 || c.AcceptedTokens != 1800 {
		t.Errorf("ollama m1 cjk: %+v", c)
	}
	if f := factor("llamacpp m1", llm.KindProse); f != 1.1 {
		t.Errorf("llamacpp m1: %v, want 1.1", f)
	}
	if k := keeper("ollama m2").Kept(); k != nil {
		t.Errorf("ollama m2: %v, want none", k)
	}
	// Absurd factors are not kept, nor read back.
	keeper("ollama m1").Keep(kc(40))
	keeper("ollama m1").Keep(kc(0.1))
	if f := factor("ollama m1", llm.KindProse); f != 1.3 {
		t.Errorf("after absurd factors: %v, want 1.3", f)
	}
	os.WriteFile(path, []byte(`{"models":{"ollama m1":{"kinds":{"prose":{"factor":1e308}}},"ollama m2":{"factor":1.2},"ollama m3":{"kinds":{"figures":{"factor":1.2}}}}}`), 0o644)
	for key, want := range map[string]float64{"ollama m1": 0, "ollama m2": 0, "ollama m3": 1.2} {
		if f := factor(key, llm.KindFigures) + factor(key, llm.KindProse); f != want {
			t.Errorf("%s in an edited file: %v, want %v", key, f, want)
		}
	}
	// A damaged file is no calibration, and the next run rewrites it.
	os.WriteFile(path, []byte("{not json"), 0o644)
	if k := keeper("ollama m3").Kept(); k != nil {
		t.Errorf("damaged file: %v", k)
	}
	keeper("ollama m3").Keep(kc(1.25))
	if f := factor("ollama m3", llm.KindProse); f != 1.25 {
		t.Errorf("after a damaged file: %v, want 1.25", f)
	}
	for i := 0; i < maxCalibrations+10; i++ {
		keeper(fmt.Sprintf("ollama x%d", i)).Keep(kc(1.1))
	}
	var cs calibrations
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &cs); err != nil || len(cs.Models) != maxCalibrations {
		t.Errorf("%d models kept (err %v), want %d", len(cs.Models), err, maxCalibrations)
	}
	if f := factor(fmt.Sprintf("ollama x%d", maxCalibrations+9), llm.KindProse); f != 1.1 {
		t.Errorf("the newest model was pruned")
	}
}
