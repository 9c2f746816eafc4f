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
	"github.com/prefrag/prefrag/llm"
)

// The token calibration kept per model (engine/calibration.go): per kind
// of text (prose, figures, CJK), the factor by which the model's tokenizer
// counts differently from prefrag's estimate and the largest prompt the
// server read whole, as the last runs measured them from the server's
// counts, kept across runs in calibration.json in the data home. A
// missing, unreadable or damaged file is no calibration (the run learns it
// again); a factor outside what a run may measure is ignored, and so is
// the single factor per model that versions before the per-kind
// calibration kept (it was measured against another estimate).

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
	Kinds   map[llm.TextKind]engine.KindCalibration `json:"kinds"`
	Updated time.Time                               `json:"updated"`
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

// Kept is what is kept for the model, per kind of text (nil when
// nothing usable is).
func (c *ModelCalibration) Kept() map[llm.TextKind]engine.KindCalibration {
	calibrationMu.Lock()
	defer calibrationMu.Unlock()
	return readCalibrations(c.Path).Models[c.Key].Kinds
}

// Keep records what a run handed back for the model's kinds of text; the
// other kinds stay as they were.
func (c *ModelCalibration) Keep(kinds map[llm.TextKind]engine.KindCalibration) {
	calibrationMu.Lock()
	defer calibrationMu.Unlock()
	cs := readCalibrations(c.Path)
	m := cs.Models[c.Key]
	if m.Kinds == nil {
		m.Kinds = map[llm.TextKind]engine.KindCalibration{}
	}
	for kind, kc := range kinds {
		if engine.SaneCalibration(kc.Factor) {
			m.Kinds[kind] = kc
		}
	}
	if len(m.Kinds) == 0 {
		return
	}
	m.Updated = time.Now().UTC()
	cs.Models[c.Key] = m
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
		for kind, kc := range c.Kinds {
			if !engine.SaneCalibration(kc.Factor) {
				delete(c.Kinds, kind)
			}
		}
		if len(c.Kinds) == 0 {
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
