// Package eval is prefrag's QA evaluation harness: it loads multi-hop QA
// files, runs every question through the engine with each strategy, scores
// the answers exactly as the PrefRAG reference implementation does, writes
// one record per question and a summary laid out like the paper's tables,
// and builds local corpora (optionally with held-out supporting paragraphs
// served by a local search-engine stand-in) from the paragraphs shipped with
// the questions.
package eval

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Question is one QA item.
type Question struct {
	// ID is the dataset's id (made unique within the file).
	ID string `json:"id"`
	// Index is the question's position in the file, from 0.
	Index int    `json:"index"`
	Text  string `json:"question"`
	// Gold holds the accepted answers, first the main one.
	Gold []string `json:"gold"`
	// Paragraphs shipped with the question (supporting and distractors).
	Paragraphs []Paragraph `json:"paragraphs,omitempty"`
}

// Paragraph is a context paragraph of a question.
type Paragraph struct {
	// ID is derived from the title and text (ParagraphID), so a paragraph
	// shared by several questions has one id.
	ID         string `json:"id"`
	Title      string `json:"title"`
	Text       string `json:"text"`
	Supporting bool   `json:"supporting,omitempty"`
}

// Supporting returns the ids of the question's supporting paragraphs.
func (q Question) Supporting() []string {
	var ids []string
	for _, p := range q.Paragraphs {
		if p.Supporting {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// Formats recognised in a QA file.
const (
	FormatIRCoT   = "ircot"    // question_text, answers_objects, contexts
	FormatMuSiQue = "musique"  // question, answer(+aliases), paragraphs
	FormatHotpot  = "hotpotqa" // question, answer, context [[title, sentences]], supporting_facts
	FormatPlain   = "plain"    // question, answer or answers
)

// Dataset is a loaded QA file.
type Dataset struct {
	// Name labels the dataset in reports.
	Name string
	// Path is the file it was read from.
	Path string
	// Format of the first record (records may mix formats).
	Format    string
	Questions []Question
	// YesNo is set when every gold answer is "yes" or "no": accuracy is
	// then scored with word boundaries (the reference's BioASQ metric).
	YesNo bool
}

// ErrData is matched by errors about a QA file's content.
var ErrData = errors.New("QA data")

// LoadFile reads a QA file: JSON Lines, a JSON array, or concatenated JSON
// objects, each a question in one of the recognised formats.
func LoadFile(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ds, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ds.Path = path
	ds.Name = DatasetName(path)
	return ds, nil
}

// DatasetName derives a label from a file name: the base name without
// extension, or the folder's name when the base name is a generic one such
// as dev_subsampled.jsonl or test.json.
func DatasetName(path string) string {
	base := filepath.Base(path)
	for {
		ext := filepath.Ext(base)
		if ext == "" || ext == base {
			break
		}
		base = strings.TrimSuffix(base, ext)
	}
	switch strings.ToLower(base) {
	case "dev", "test", "train", "dev_subsampled", "test_subsampled", "data", "questions", "eval":
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	}
	return base
}

// Parse reads questions from r (see LoadFile).
func Parse(r io.Reader) (*Dataset, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	dec := json.NewDecoder(br)
	dec.UseNumber()
	ds := &Dataset{}
	ids := map[string]int{}
	add := func(raw json.RawMessage, where string) error {
		q, format, err := ParseQuestion(raw)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrData, where, err)
		}
		if ds.Format == "" {
			ds.Format = format
		}
		q.Index = len(ds.Questions)
		if q.ID == "" {
			q.ID = "q" + strconv.Itoa(q.Index+1)
		}
		if ids[q.ID] > 0 {
			base := q.ID
			for n := ids[base] + 1; ; n++ {
				if cand := base + "#" + strconv.Itoa(n); ids[cand] == 0 {
					ids[base] = n
					q.ID = cand
					break
				}
			}
		}
		ids[q.ID]++
		ds.Questions = append(ds.Questions, q)
		return nil
	}
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: record %d is not valid JSON: %v", ErrData, n, err)
		}
		where := "record " + strconv.Itoa(n)
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrData, where, err)
			}
			for i, it := range items {
				if err := add(it, fmt.Sprintf("item %d", i+1)); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := add(raw, where); err != nil {
			return nil, err
		}
	}
	if len(ds.Questions) == 0 {
		return nil, fmt.Errorf("%w: no questions found", ErrData)
	}
	ds.YesNo = allYesNo(ds.Questions)
	return ds, nil
}

func allYesNo(qs []Question) bool {
	for _, q := range qs {
		for _, g := range q.Gold {
			switch strings.ToLower(strings.TrimSpace(g)) {
			case "yes", "no":
			default:
				return false
			}
		}
	}
	return true
}

// ParseQuestion reads one record and says which format it was in.
func ParseQuestion(raw []byte) (Question, string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Question{}, "", errors.New("not a JSON object")
	}
	var q Question
	format := FormatPlain
	for _, k := range []string{"question_text", "question", "query"} {
		if s, ok := str(m[k]); ok && strings.TrimSpace(s) != "" {
			q.Text = strings.TrimSpace(s)
			break
		}
	}
	if q.Text == "" {
		return Question{}, "", errors.New(`no "question" (or "question_text")`)
	}
	for _, k := range []string{"question_id", "id", "_id", "idx", "qid"} {
		if s, ok := scalar(m[k]); ok && s != "" {
			q.ID = s
			break
		}
	}
	var gold []string
	if v, ok := m["answers_objects"]; ok {
		format = FormatIRCoT
		gold = append(gold, answerObjects(v)...)
	}
	for _, k := range []string{"answer", "answers", "golden_answers", "answer_aliases"} {
		gold = append(gold, scalars(m[k])...)
	}
	q.Gold = dedupe(gold)
	if len(q.Gold) == 0 {
		return Question{}, "", errors.New("no gold answer (answer, answers, answers_objects or golden_answers)")
	}
	switch {
	case m["contexts"] != nil:
		q.Paragraphs = objectParagraphs(m["contexts"])
		if format == FormatPlain {
			format = FormatIRCoT
		}
	case m["paragraphs"] != nil:
		q.Paragraphs = objectParagraphs(m["paragraphs"])
		format = FormatMuSiQue
	case m["context"] != nil:
		q.Paragraphs = hotpotParagraphs(m["context"], m["supporting_facts"])
		format = FormatHotpot
	}
	q.Paragraphs = dedupeParagraphs(q.Paragraphs)
	return q, format, nil
}

// str reads a JSON string.
func str(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// scalar reads a string, number or boolean as text.
func scalar(raw json.RawMessage) (string, bool) {
	if s, ok := str(raw); ok {
		return strings.TrimSpace(s), true
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if len(raw) == 0 || d.Decode(&v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// scalars reads a scalar or a list of scalars.
func scalars(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	if s, ok := scalar(raw); ok {
		return []string{s}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []string
	for _, it := range list {
		if s, ok := scalar(it); ok {
			out = append(out, s)
		}
	}
	return out
}

// answerObjects reads IRCoT's answers_objects: spans, else a number, else a
// date written "day month year" (the parts that are set).
func answerObjects(raw json.RawMessage) []string {
	var objs []struct {
		Number json.RawMessage `json:"number"`
		Date   struct {
			Day   json.RawMessage `json:"day"`
			Month json.RawMessage `json:"month"`
			Year  json.RawMessage `json:"year"`
		} `json:"date"`
		Spans []json.RawMessage `json:"spans"`
	}
	if json.Unmarshal(raw, &objs) != nil {
		return nil
	}
	var out []string
	for _, o := range objs {
		var spans []string
		for _, s := range o.Spans {
			if v, ok := scalar(s); ok && v != "" {
				spans = append(spans, v)
			}
		}
		if len(spans) > 0 {
			out = append(out, spans...)
			continue
		}
		if n, ok := scalar(o.Number); ok && n != "" {
			out = append(out, n)
			continue
		}
		var parts []string
		for _, p := range []json.RawMessage{o.Date.Day, o.Date.Month, o.Date.Year} {
			if v, ok := scalar(p); ok && v != "" {
				parts = append(parts, v)
			}
		}
		if len(parts) > 0 {
			out = append(out, strings.Join(parts, " "))
		}
	}
	return out
}

// objectParagraphs reads a list of {title, paragraph_text|text|content,
// is_supporting}.
func objectParagraphs(raw json.RawMessage) []Paragraph {
	var list []map[string]json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []Paragraph
	for _, m := range list {
		title, _ := str(m["title"])
		var text string
		for _, k := range []string{"paragraph_text", "text", "content", "contents"} {
			if s, ok := str(m[k]); ok && s != "" {
				text = s
				break
			}
		}
		var sup bool
		_ = json.Unmarshal(m["is_supporting"], &sup)
		out = append(out, newParagraph(title, text, sup))
	}
	return out
}

// hotpotParagraphs reads HotpotQA's and 2WikiMultiHopQA's context:
// [[title, [sentence, ...]], ...]; a paragraph is supporting when its title
// appears in supporting_facts ([[title, sentence index], ...]).
func hotpotParagraphs(raw, facts json.RawMessage) []Paragraph {
	var ctx [][]json.RawMessage
	if json.Unmarshal(raw, &ctx) != nil {
		if s, ok := str(raw); ok && strings.TrimSpace(s) != "" {
			return []Paragraph{newParagraph("", s, false)}
		}
		return nil
	}
	sup := map[string]bool{}
	var fs [][]json.RawMessage
	if json.Unmarshal(facts, &fs) == nil {
		for _, f := range fs {
			if len(f) > 0 {
				if t, ok := str(f[0]); ok {
					sup[t] = true
				}
			}
		}
	}
	var out []Paragraph
	for _, c := range ctx {
		if len(c) < 2 {
			continue
		}
		title, _ := str(c[0])
		var sentences []string
		if json.Unmarshal(c[1], &sentences) != nil {
			if s, ok := str(c[1]); ok {
				sentences = []string{s}
			}
		}
		out = append(out, newParagraph(title, joinSentences(sentences), sup[title]))
	}
	return out
}

// joinSentences concatenates sentences, adding a space only where neither
// side has one (HotpotQA's sentences carry their leading spaces,
// 2WikiMultiHopQA's do not).
func joinSentences(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		if b.Len() > 0 && s != "" && !endsSpace(b.String()) && !startsSpace(s) {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

func endsSpace(s string) bool   { return s != "" && strings.TrimRight(s, " \t\n") != s }
func startsSpace(s string) bool { return s != "" && strings.TrimLeft(s, " \t\n") != s }

func newParagraph(title, text string, supporting bool) Paragraph {
	title, text = strings.TrimSpace(title), strings.TrimSpace(text)
	return Paragraph{ID: ParagraphID(title, text), Title: title, Text: text, Supporting: supporting}
}

// ParagraphID is the id a paragraph gets in pooled corpora: "p" and 16 hex
// digits of the SHA-256 of title and text, so the same paragraph shipped
// with several questions (or datasets) is one document.
func ParagraphID(title, text string) string {
	h := sha256.Sum256([]byte(title + "\x00" + text))
	return "p" + hex.EncodeToString(h[:8])
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// dedupeParagraphs drops empty paragraphs and repeats within a question; a
// repeat that is supporting makes the kept one supporting.
func dedupeParagraphs(ps []Paragraph) []Paragraph {
	at := map[string]int{}
	var out []Paragraph
	for _, p := range ps {
		if p.Text == "" {
			continue
		}
		if i, ok := at[p.ID]; ok {
			out[i].Supporting = out[i].Supporting || p.Supporting
			continue
		}
		at[p.ID] = len(out)
		out = append(out, p)
	}
	return out
}
