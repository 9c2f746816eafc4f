package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The calibration file keeps a factor per backend and model: a keeper made
// later (a new process) reads what an earlier one kept; another model has
// none; absurd or damaged entries are none; the file keeps at most
// maxCalibrations models.
func TestCalibrationFileKeepsPerModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), CalibrationFile)
	keeper := func(key string) *ModelCalibration { return &ModelCalibration{Path: path, Key: key} }
	if f := keeper("ollama m1").Kept(); f != 0 {
		t.Fatalf("no file: kept %v", f)
	}
	keeper("ollama m1").Keep(1.3)
	keeper("llamacpp m1").Keep(1.1)
	if f := keeper("ollama m1").Kept(); f != 1.3 {
		t.Errorf("ollama m1: %v, want 1.3", f)
	}
	if f := keeper("llamacpp m1").Kept(); f != 1.1 {
		t.Errorf("llamacpp m1: %v, want 1.1", f)
	}
	if f := keeper("ollama m2").Kept(); f != 0 {
		t.Errorf("ollama m2: %v, want none", f)
	}
	// Absurd factors are not kept, nor read back.
	keeper("ollama m1").Keep(40)
	keeper("ollama m1").Keep(0.2)
	if f := keeper("ollama m1").Kept(); f != 1.3 {
		t.Errorf("after absurd factors: %v, want 1.3", f)
	}
	os.WriteFile(path, []byte(`{"models":{"ollama m1":{"factor":1e308},"ollama m2":{"factor":-1},"ollama m3":{"factor":1.2}}}`), 0o644)
	for key, want := range map[string]float64{"ollama m1": 0, "ollama m2": 0, "ollama m3": 1.2} {
		if f := keeper(key).Kept(); f != want {
			t.Errorf("%s in an edited file: %v, want %v", key, f, want)
		}
	}
	// A damaged file is no calibration, and the next run rewrites it.
	os.WriteFile(path, []byte("{not json"), 0o644)
	if f := keeper("ollama m3").Kept(); f != 0 {
		t.Errorf("damaged file: %v", f)
	}
	keeper("ollama m3").Keep(1.25)
	if f := keeper("ollama m3").Kept(); f != 1.25 {
		t.Errorf("after a damaged file: %v, want 1.25", f)
	}
	for i := 0; i < maxCalibrations+10; i++ {
		keeper(fmt.Sprintf("ollama x%d", i)).Keep(1.1)
	}
	var cs calibrations
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &cs); err != nil || len(cs.Models) != maxCalibrations {
		t.Errorf("%d models kept (err %v), want %d", len(cs.Models), err, maxCalibrations)
	}
	if f := keeper(fmt.Sprintf("ollama x%d", maxCalibrations+9)).Kept(); f != 1.1 {
		t.Errorf("the newest model was pruned")
	}
}
