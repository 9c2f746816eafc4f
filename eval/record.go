package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/prefrag/prefrag/engine"
)

// Record is one answered question of one strategy: a line of
// <out>/<strategy>.jsonl. Acc, EM and F1 are on a 0–1 scale (the summary
// reports them ×100).
type Record struct {
	Dataset    string   `json:"dataset"`
	ID         string   `json:"id"`
	Index      int      `json:"index"`
	Question   string   `json:"question"`
	Strategy   string   `json:"strategy"`
	Prediction string   `json:"prediction"`
	Gold       []string `json:"gold"`
	Acc        float64  `json:"acc"`
	EM         float64  `json:"em"`
	F1         float64  `json:"f1"`
	// Metric is "qa" (substring accuracy) or "yesno" (word-boundary
	// accuracy).
	Metric string        `json:"metric"`
	Label  string        `json:"label,omitempty"`
	Forced bool          `json:"forced,omitempty"`
	Counts engine.Counts `json:"counts"`
	// WallMillis is the question's wall time in the evaluation.
	WallMillis int64 `json:"wall_ms"`
	// SupportRecall is the share of the question's supporting paragraphs
	// that entered the reasoning context (when the dataset marks them).
	SupportRecall *float64 `json:"support_recall,omitempty"`
	Model         string   `json:"model"`
	// Session is the stored session's id when the run was kept as one.
	Session string            `json:"session,omitempty"`
	Events  []json.RawMessage `json:"events"`
}

// Metric names.
const (
	MetricQA    = "qa"
	MetricYesNo = "yesno"
)

// RecordFile is where a strategy's records live.
func RecordFile(dir, strategy string) string {
	return filepath.Join(dir, strategy+".jsonl")
}

// ReadRecords reads a records file. A missing file is empty. A last line
// cut short (a run killed while writing) is ignored; any other line that is
// not a record is an error.
func ReadRecords(path string) ([]Record, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := parseRecords(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

func parseRecords(r io.Reader) ([]Record, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out []Record
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		complete := err == nil
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var rec Record
			if jerr := json.Unmarshal(t, &rec); jerr != nil || rec.ID == "" || rec.Strategy == "" {
				if !complete {
					break // a torn last line
				}
				return nil, fmt.Errorf("%w: line %d is not an evaluation record", ErrData, n)
			}
			out = append(out, rec)
		}
		if !complete {
			break
		}
	}
	return out, nil
}

// recordWriter appends records to a strategy's file, one whole line per
// write, so a killed run leaves at most one torn line (which ReadRecords
// skips and the next run cuts off).
type recordWriter struct {
	mu sync.Mutex
	f  *os.File
}

func openRecordWriter(path string) (*recordWriter, error) {
	if err := cutTornLine(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &recordWriter{f: f}, nil
}

func (w *recordWriter) write(rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(b)
	return err
}

func (w *recordWriter) Close() error { return w.f.Close() }

// cutTornLine truncates a file that does not end with a newline back to
// its last complete line.
func cutTornLine(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || len(b) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	if b[len(b)-1] == '\n' {
		return nil
	}
	return os.Truncate(path, int64(bytes.LastIndexByte(b, '\n')+1))
}

// LoadResults reads every strategy's records under dir, ordered by
// dataset, strategy and question position.
func LoadResults(dir string) ([]Record, error) {
	var all []Record
	for _, name := range engine.StrategyNames() {
		recs, err := ReadRecords(RecordFile(dir, name))
		if err != nil {
			return nil, err
		}
		all = append(all, recs...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Dataset != b.Dataset {
			return a.Dataset < b.Dataset
		}
		if a.Strategy != b.Strategy {
			return a.Strategy < b.Strategy
		}
		return a.Index < b.Index
	})
	return all, nil
}

// supportRecall is the share of supporting paragraphs among the documents
// that entered the context (observations and supplements).
func supportRecall(q Question, events []engine.Event) *float64 {
	sup := q.Supporting()
	if len(sup) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, ev := range events {
		o, ok := ev.Payload.(engine.Observed)
		if !ok {
			continue
		}
		for _, id := range o.ContextIDs() {
			if pid, ok := ParagraphIDOf(id); ok {
				seen[pid] = true
			}
		}
	}
	hit := 0
	for _, id := range sup {
		if seen[id] {
			hit++
		}
	}
	v := float64(hit) / float64(len(sup))
	return &v
}
