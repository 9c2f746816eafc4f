package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// The token calibration kept per model (engine/calibration.go): the factor
// by which a model's tokenizer counts more than the runes/4 estimate, as
// the last runs measured it from the server's counts, kept across runs in
// calibration.json in the data home. A missing, unreadable or damaged file
// is no calibration (the run learns it again); a factor outside what a run
// may measure is ignored.

// CalibrationFile is the file name in $PREFRAG_HOME.
const CalibrationFile = "calibration.json"

// maxCalibrations bounds the models the file keeps (the least recently
// updated go first).
const maxCalibrations = 64

// calibrations is the file's content.
type calibrations struct {
	Models map[string]calibration `json:"models"`
}

type calibration struct {
	Factor  float64   `json:"factor"`
	Updated time.Time `json:"updated"`
}

// calibrationMu serialises this process's reads and writes of the file
// (the workspace may run several questions); between processes the last
// writer wins, and a rename keeps the file whole.
var calibrationMu sync.Mutex

// ModelCalibration is the calibration kept for one model of one backend
// (an engine.CalibrationKeeper).
type ModelCalibration struct {
	Path string // the file
	Key  string // backend and model
	// Logf reports a file that could not be written; nil stays silent.
	Logf func(format string, args ...any)
}

// calibrationKeeper is the keeper of a run's reasoning model; none when
// the model has no name (a server that did not say which it serves).
func (a *App) calibrationKeeper(backend, model string) engine.CalibrationKeeper {
	if model == "" {
		return nil
	}
	return &ModelCalibration{Path: filepath.Join(a.Cfg.Home, CalibrationFile), Key: backend + " " + model,
		Logf: func(format string, args ...any) { a.Log.Warn(fmt.Sprintf(format, args...)) }}
}

// Kept is the factor kept for the model, 0 when there is none usable.
func (c *ModelCalibration) Kept() float64 {
	calibrationMu.Lock()
	defer calibrationMu.Unlock()
	f := readCalibrations(c.Path).Models[c.Key].Factor
	if !engine.SaneCalibration(f) {
		return 0
	}
	return f
}

// Keep records the factor a run measured for the model.
func (c *ModelCalibration) Keep(factor float64) {
	if !engine.SaneCalibration(factor) {
		return
	}
	calibrationMu.Lock()
	defer calibrationMu.Unlock()
	cs := readCalibrations(c.Path)
	cs.Models[c.Key] = calibration{Factor: factor, Updated: time.Now().UTC()}
	cs.prune()
	if err := writeCalibrations(c.Path, cs); err != nil && c.Logf != nil {
		c.Logf("the token calibration could not be kept: %v", err)
	}
}

// readCalibrations reads the file; anything unreadable is an empty one.
func readCalibrations(path string) calibrations {
	var cs calibrations
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &cs)
	}
	if cs.Models == nil {
		cs.Models = map[string]calibration{}
	}
	for k, c := range cs.Models {
		if !engine.SaneCalibration(c.Factor) {
			delete(cs.Models, k)
		}
	}
	return cs
}

// prune keeps the maxCalibrations most recently updated models.
func (cs calibrations) prune() {
	if len(cs.Models) <= maxCalibrations {
		return
	}
	keys := make([]string, 0, len(cs.Models))
	for k := range cs.Models {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := cs.Models[keys[i]], cs.Models[keys[j]]
		if !a.Updated.Equal(b.Updated) {
			return a.Updated.After(b.Updated)
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys[maxCalibrations:] {
		delete(cs.Models, k)
	}
}

// writeCalibrations replaces the file whole (a temporary file renamed).
func writeCalibrations(path string, cs calibrations) error {
	b, err := json.MarshalIndent(cs, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".calibration-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
