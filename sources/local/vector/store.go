// Package vector is the vector index beside a local corpus: the passages'
// embeddings, stored in parts on disk, searched by the sign codes of their
// vectors (one bit a dimension, kept in memory) and rescored exactly from
// the full vectors (read from disk for a few hundred candidates).
//
// A corpus's vectors live in <corpus>/vectors/: a file CURRENT names the
// generation in use (a folder g-NNNN holding one embedding model's
// vectors). A generation has immutable part files (part.go), a manifest
// naming them with the model, dimensions, normalisation, server kind and
// the mean vector the codes are centred on, and a file table saying, per
// source file, which records are its passages' vectors (runs of records)
// and which version of the file they embed (its content hash). Every
// change is a new file renamed into place, then a new manifest renamed into
// place: a process killed at any moment leaves the previous manifest and
// every part it names intact. Records no file points at any more (a file
// that changed, a run cut short) stay in their parts as a cache: a text
// embedded before, by the same model, is never embedded again; they are
// dropped when the generation is compacted.
package vector

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Meta is what a generation's vectors are.
type Meta struct {
	// Model is the embedding model as the server names it.
	Model string `json:"model"`
	// Dims is the length of every vector.
	Dims int `json:"dims"`
	// Normalised is true: every vector is scaled to unit length, and
	// scores are cosine similarities.
	Normalised bool `json:"normalised"`
	// Server is the kind of server that embedded them (the backend name:
	// "ollama", "llamacpp", "openai").
	Server string `json:"server"`
}

// Run is a range of records of one part: [Start, Start+N).
type Run struct {
	Part  int `json:"p"`
	Start int `json:"s"`
	N     int `json:"n"`
}

// FileState says which records hold the vectors of one source file's
// passages.
type FileState struct {
	// Hash is the content hash of the file version embedded; "" while the
	// file is only partly embedded (a run cut short).
	Hash string `json:"hash"`
	Runs []Run  `json:"runs"`
}

// Records counts the records of the file's runs.
func (f FileState) Records() int {
	n := 0
	for _, r := range f.Runs {
		n += r.N
	}
	return n
}

// partInfo describes one part of a manifest.
type partInfo struct {
	ID    int `json:"id"`
	Count int `json:"count"`
}

// manifest is a generation's state.
type manifest struct {
	Version int  `json:"version"`
	Meta    Meta `json:"meta"`
	// Mean is the vector the codes are centred on; MeanEpoch changes with
	// it (a part's codes are valid for the epoch in its header); MeanOf is
	// the number of vectors it was computed from.
	Mean      []float32  `json:"mean"`
	MeanEpoch int        `json:"mean_epoch"`
	MeanOf    int        `json:"mean_of"`
	Parts     []partInfo `json:"parts"`
	NextPart  int        `json:"next_part"`
	// Files names the file table (files-NNNNNN.json) of this state.
	Files string `json:"files"`
	// Live are the runs of every file, sorted: the records searched.
	Live    []Run     `json:"live"`
	Updated time.Time `json:"updated"`
	// Complete is set when the last embedding run finished.
	Complete bool `json:"complete"`
}

const (
	manifestVersion = 1
	currentFile     = "CURRENT"
	manifestFile    = "manifest.json"
)

// ErrNone is matched when a corpus has no vectors.
var ErrNone = errors.New("no vectors")

// ErrDamaged is matched when a corpus's vector files cannot be read.
var ErrDamaged = errors.New("vectors damaged")

// DamagedError says what is wrong with the vector files.
type DamagedError struct{ Reason string }

func (e *DamagedError) Error() string { return "its vectors are damaged (" + e.Reason + ")" }

func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// current names the generation in use under dir ("" when none).
func current(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, currentFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name := strings.TrimSpace(string(b))
	if !strings.HasPrefix(name, "g-") || strings.ContainsAny(name, `/\`) {
		return "", &DamagedError{Reason: "CURRENT names " + fmt.Sprintf("%q", name)}
	}
	return name, nil
}

// ReadMeta returns the meta of the vectors in use under dir (a corpus's
// vectors folder), and ErrNone when there are none.
func ReadMeta(dir string) (Meta, error) {
	m, _, err := readCurrent(dir)
	if err != nil {
		return Meta{}, err
	}
	return m.Meta, nil
}

// Status is what `prefrag corpora` says of a corpus's vectors.
type Status struct {
	Meta
	// Vectors counts the passages with a vector; Complete is false when
	// the last embedding run did not finish.
	Vectors  int       `json:"vectors"`
	Complete bool      `json:"complete"`
	Updated  time.Time `json:"updated"`
}

// ReadStatus returns the state of the vectors in use under dir, and
// ErrNone when there are none.
func ReadStatus(dir string) (Status, error) {
	m, _, err := readCurrent(dir)
	if err != nil {
		return Status{}, err
	}
	n := 0
	for _, r := range m.Live {
		n += r.N
	}
	return Status{Meta: m.Meta, Vectors: n, Complete: m.Complete, Updated: m.Updated}, nil
}

func readCurrent(dir string) (manifest, string, error) {
	name, err := current(dir)
	if err != nil {
		return manifest{}, "", err
	}
	if name == "" {
		return manifest{}, "", ErrNone
	}
	gdir := filepath.Join(dir, name)
	m, err := readManifest(gdir)
	return m, gdir, err
}

func readManifest(gdir string) (manifest, error) {
	var m manifest
	b, err := os.ReadFile(filepath.Join(gdir, manifestFile))
	if err != nil {
		return m, &DamagedError{Reason: "its manifest cannot be read: " + err.Error()}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, &DamagedError{Reason: "its manifest is not valid JSON"}
	}
	if m.Version != manifestVersion || m.Meta.Dims <= 0 || len(m.Mean) != m.Meta.Dims {
		return m, &DamagedError{Reason: fmt.Sprintf("its manifest is of version %d with %d dimensions", m.Version, m.Meta.Dims)}
	}
	return m, nil
}

// writeJSONFile writes v to path through a synced temporary file and a
// rename.
func writeJSONFile(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// setCurrent makes generation name the one in use under dir.
func setCurrent(dir, name string) error {
	tmp := filepath.Join(dir, currentFile+".tmp")
	if err := os.WriteFile(tmp, []byte(name+"\n"), 0o644); err != nil {
		return err
	}
	f, err := os.Open(tmp)
	if err == nil {
		err = f.Sync()
		f.Close()
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, currentFile)); err != nil {
		return err
	}
	return syncDir(dir)
}

// liveRuns merges the runs of every file into one sorted list.
func liveRuns(files map[string]FileState) []Run {
	var runs []Run
	for _, f := range files {
		runs = append(runs, f.Runs...)
	}
	sort.Slice(runs, func(i, j int) bool {
		if runs[i].Part != runs[j].Part {
			return runs[i].Part < runs[j].Part
		}
		return runs[i].Start < runs[j].Start
	})
	out := runs[:0]
	for _, r := range runs {
		n := len(out)
		if n > 0 && out[n-1].Part == r.Part {
			end := out[n-1].Start + out[n-1].N
			if r.Start < end {
				// Two files never hold one record; if they did, it is
				// searched once.
				cut := min(end-r.Start, r.N)
				r.Start, r.N = r.Start+cut, r.N-cut
				if r.N == 0 {
					continue
				}
			}
			if r.Start == end {
				out[n-1].N += r.N
				continue
			}
		}
		out = append(out, r)
	}
	return out
}
