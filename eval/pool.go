package eval

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

// Holdout says which supporting paragraphs are left out of a pooled local
// corpus (and served by the search-engine stand-in instead). The choice is
// made per paragraph from its id and the seed, so it is the same whichever
// questions are pooled and however many.
type Holdout struct {
	Fraction float64 `json:"fraction"`
	Seed     int64   `json:"seed"`
}

// Active reports whether anything is held out.
func (h Holdout) Active() bool { return h.Fraction > 0 }

// Validate checks the fraction.
func (h Holdout) Validate() error {
	if math.IsNaN(h.Fraction) || h.Fraction < 0 || h.Fraction > 1 {
		return fmt.Errorf("the held-out fraction must be between 0 and 1, not %v", h.Fraction)
	}
	return nil
}

// HeldOut reports whether the supporting paragraph with this id is held
// out: a hash of seed and id, read as a number in [0, 1), falls below the
// fraction.
func (h Holdout) HeldOut(paragraphID string) bool {
	if h.Fraction <= 0 {
		return false
	}
	sum := sha256.Sum256([]byte(strconv.FormatInt(h.Seed, 10) + "\x00" + paragraphID))
	u := float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
	return u < h.Fraction
}

// PoolParagraphs pools the paragraphs of questions, deduplicated by title
// and text (their id), in order of first appearance. A paragraph is
// supporting when it supports any of the questions.
func PoolParagraphs(qs []Question) []Paragraph {
	at := map[string]int{}
	var out []Paragraph
	for _, q := range qs {
		for _, p := range q.Paragraphs {
			if i, ok := at[p.ID]; ok {
				out[i].Supporting = out[i].Supporting || p.Supporting
				continue
			}
			at[p.ID] = len(out)
			out = append(out, p)
		}
	}
	return out
}

// SplitPool separates a pool into what the local corpus keeps and what is
// held out (supporting paragraphs chosen by h).
func SplitPool(pool []Paragraph, h Holdout) (kept, heldOut []Paragraph) {
	for _, p := range pool {
		if p.Supporting && h.HeldOut(p.ID) {
			heldOut = append(heldOut, p)
		} else {
			kept = append(kept, p)
		}
	}
	return kept, heldOut
}

// StandInParagraphs is what the search-engine stand-in serves: the
// held-out supporting paragraphs plus every non-supporting paragraph of
// the pool as distractors (some of which the local corpus has too, as the
// web would).
func StandInParagraphs(pool []Paragraph, h Holdout) []Paragraph {
	var out []Paragraph
	for _, p := range pool {
		if !p.Supporting || h.HeldOut(p.ID) {
			out = append(out, p)
		}
	}
	return out
}

// QAPoolInfo records how a corpus was pooled from a QA file. It is kept
// beside the pooled .jsonl so `prefrag eval` can check (or adopt) the
// holdout the corpus was built with.
type QAPoolInfo struct {
	Corpus     string    `json:"corpus"`
	Data       string    `json:"data"`
	Dataset    string    `json:"dataset"`
	Questions  int       `json:"questions"`
	Limit      int       `json:"limit,omitempty"`
	Paragraphs int       `json:"paragraphs"`
	Supporting int       `json:"supporting"`
	Holdout    *Holdout  `json:"holdout,omitempty"`
	HeldOut    int       `json:"held_out"`
	Indexed    int       `json:"indexed"`
	Created    time.Time `json:"created"`
}

// poolDir holds pooled files; a leading dot keeps it out of corpus listings
// (corpus names cannot start with one).
func poolDir(corporaDir string) string { return filepath.Join(corporaDir, ".qa-pools") }

// PoolFile is the pooled .jsonl a corpus was indexed from.
func PoolFile(corporaDir, name string) string {
	return filepath.Join(poolDir(corporaDir), name+".jsonl")
}

func poolInfoFile(corporaDir, name string) string {
	return filepath.Join(poolDir(corporaDir), name+".json")
}

// ReadQAPoolInfo reads how corpus name was pooled; ok is false for a
// corpus that was not built with IndexFromQA.
func ReadQAPoolInfo(corporaDir, name string) (info QAPoolInfo, ok bool, err error) {
	b, err := os.ReadFile(poolInfoFile(corporaDir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return QAPoolInfo{}, false, nil
	}
	if err != nil {
		return QAPoolInfo{}, false, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return QAPoolInfo{}, false, fmt.Errorf("%s: %w", poolInfoFile(corporaDir, name), err)
	}
	return info, true, nil
}

// PoolOption tunes IndexFromQA.
type PoolOption func(*poolConfig)

type poolConfig struct {
	limit    int
	holdout  Holdout
	progress func(local.Progress)
}

// PoolLimit pools only the first n questions (n <= 0: all).
func PoolLimit(n int) PoolOption { return func(c *poolConfig) { c.limit = n } }

// PoolHoldout leaves out the supporting paragraphs h selects.
func PoolHoldout(h Holdout) PoolOption { return func(c *poolConfig) { c.holdout = h } }

// PoolProgress receives indexing progress.
func PoolProgress(f func(local.Progress)) PoolOption { return func(c *poolConfig) { c.progress = f } }

// ErrNoParagraphs is returned for a QA file that ships no paragraphs.
var ErrNoParagraphs = errors.New("the QA file has no paragraphs to pool")

// IndexFromQA builds corpus name under corporaDir from the paragraphs
// shipped with the questions of a QA file: they are pooled (deduplicated by
// title and text), the held-out supporting paragraphs are left out, and the
// rest is written to a .jsonl of {"id","title","text"} (ids from
// ParagraphID) that local.Index ingests. The .jsonl stays at PoolFile, so
// re-running is an unchanged-file no-op and pooling another file into the
// same corpus replaces the previous pool.
func IndexFromQA(ctx context.Context, corporaDir, name, file string, opts ...PoolOption) (local.Report, error) {
	var cfg poolConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := local.ValidateName(name); err != nil {
		return local.Report{Corpus: name}, err
	}
	if err := cfg.holdout.Validate(); err != nil {
		return local.Report{Corpus: name}, err
	}
	ds, err := LoadFile(file)
	if err != nil {
		return local.Report{Corpus: name}, err
	}
	qs := ds.Questions
	if cfg.limit > 0 && cfg.limit < len(qs) {
		qs = qs[:cfg.limit]
	}
	pool := PoolParagraphs(qs)
	if len(pool) == 0 {
		return local.Report{Corpus: name}, fmt.Errorf("%s: %w", file, ErrNoParagraphs)
	}
	kept, heldOut := SplitPool(pool, cfg.holdout)
	if err := os.MkdirAll(poolDir(corporaDir), 0o755); err != nil {
		return local.Report{Corpus: name}, err
	}
	if err := writePool(PoolFile(corporaDir, name), kept); err != nil {
		return local.Report{Corpus: name}, err
	}
	rep, err := catalog.Index(ctx, corporaDir, name, []string{PoolFile(corporaDir, name)}, local.IndexOptions{Progress: cfg.progress})
	if err != nil {
		return rep, err
	}
	abs, _ := filepath.Abs(file)
	info := QAPoolInfo{Corpus: name, Data: abs, Dataset: ds.Name, Questions: len(qs), Limit: cfg.limit,
		Paragraphs: len(pool), HeldOut: len(heldOut), Indexed: len(kept), Created: time.Now().UTC()}
	for _, p := range pool {
		if p.Supporting {
			info.Supporting++
		}
	}
	if cfg.holdout.Active() {
		h := cfg.holdout
		info.Holdout = &h
	}
	b, _ := json.MarshalIndent(info, "", "  ")
	if err := writeFileAtomic(poolInfoFile(corporaDir, name), append(b, '\n')); err != nil {
		return rep, err
	}
	return rep, nil
}

type poolLine struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

func writePool(path string, ps []Paragraph) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range ps {
		if err := enc.Encode(poolLine{ID: p.ID, Title: p.Title, Text: p.Text}); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return replaceIfChanged(tmp, path)
}

// replaceIfChanged renames tmp over path unless path already has the same
// bytes (then its modification time is kept and the index sees no change).
func replaceIfChanged(tmp, path string) error {
	old, err := os.ReadFile(path)
	if err == nil {
		if fresh, err := os.ReadFile(tmp); err == nil && string(fresh) == string(old) {
			return os.Remove(tmp)
		}
	}
	return os.Rename(tmp, path)
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
