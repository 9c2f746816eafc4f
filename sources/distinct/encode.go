package distinct

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// encoded is a Set as it is written to disk.
type encoded struct {
	Version  int
	Passages int
	Words    map[string]Kind
	Runs     [][]uint64
}

// encodingVersion changes whenever what a Set holds changes (the rules of
// tokens.go, shape.go, set.go, runs.go or common.txt): a Set written by another
// version is not read back.
const encodingVersion = 2

// MarshalBinary encodes the Set (gob).
func (s *Set) MarshalBinary() ([]byte, error) {
	e := encoded{Version: encodingVersion, Passages: s.passages, Words: s.words, Runs: s.runs[:]}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(e); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes a Set MarshalBinary encoded; a Set of another
// version or shape is an error.
func (s *Set) UnmarshalBinary(data []byte) error {
	var e encoded
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&e); err != nil {
		return err
	}
	if e.Version != encodingVersion || len(e.Runs) != len(tiers) {
		return fmt.Errorf("distinctive strings of version %d, not %d", e.Version, encodingVersion)
	}
	s.passages, s.words = e.Passages, e.Words
	if s.words == nil {
		s.words = map[string]Kind{}
	}
	copy(s.runs[:], e.Runs)
	return nil
}
