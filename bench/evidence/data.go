// Package evidence measures the evidence aligner (package evidence at the
// module root) on multi-hop QA files that mark supporting sentences:
// HotpotQA and 2WikiMultiHopQA. The question plus its gold answer is one
// claim citing each gold paragraph; the sentences the aligner quotes are
// compared with supporting_facts.
package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	ev "github.com/prefrag/prefrag/evidence"
)

// Question is one question of the file with its paragraphs.
type Question struct {
	ID       string
	Question string
	Answer   string
	// Paragraphs are the context, numbered from 1 in file order.
	Paragraphs []Paragraph
}

// Paragraph is one context paragraph: the text is its sentences joined,
// Sentences their spans in it, Gold the indices of the supporting ones.
type Paragraph struct {
	Title     string
	Text      string
	Sentences []ev.Span
	Gold      []int
}

// IsGold says whether the paragraph holds a supporting fact.
func (p Paragraph) IsGold() bool { return len(p.Gold) > 0 }

// Dataset is a loaded file.
type Dataset struct {
	Questions []Question
	// Skipped counts the records left out: those without question, answer,
	// context or supporting facts, and the BadFactRecords, whose supporting
	// facts all name no sentence of their context. BadFacts counts the
	// supporting facts naming no sentence of the context (in records used
	// or not); FirstBadFact says what the first of them is.
	Skipped, BadFactRecords, BadFacts int
	FirstBadFact                      string
}

// ErrFormat says a file is not a HotpotQA/2Wiki question file.
var ErrFormat = errors.New("not a HotpotQA or 2WikiMultiHopQA file")

// ErrBadFacts says no record of a file can be used because supporting
// facts name no sentence of their context (a title not in it, a sentence
// index past its end, a fact that is not [title, index]).
var ErrBadFacts = errors.New("supporting facts name no sentence of their context")

type record struct {
	ID       string            `json:"_id"`
	Question string            `json:"question"`
	Answer   json.RawMessage   `json:"answer"`
	Facts    []json.RawMessage `json:"supporting_facts"`
	Context  []json.RawMessage `json:"context"`
}

// LoadFile reads a JSON array or JSON Lines of records with question,
// answer, supporting_facts ([title, sentence index]) and context ([title,
// [sentences]]).
func LoadFile(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f)
}

// Load reads records from r (see LoadFile).
func Load(r io.Reader) (*Dataset, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	dec := json.NewDecoder(br)
	first, err := peekNonSpace(br)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if first == '[' {
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
	}
	ds := &Dataset{}
	n := 0
	for dec.More() {
		var rec record
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("%w: record %d: %v", ErrFormat, n+1, err)
		}
		n++
		q, bad, ok := convert(rec)
		ds.BadFacts += len(bad)
		if len(bad) > 0 && ds.FirstBadFact == "" {
			ds.FirstBadFact = fmt.Sprintf("record %d: %s", n, bad[0])
		}
		if !ok {
			ds.Skipped++
			if len(bad) > 0 {
				ds.BadFactRecords++
			}
			continue
		}
		ds.Questions = append(ds.Questions, q)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: no records", ErrFormat)
	}
	if len(ds.Questions) == 0 {
		return nil, noneUsable(ds, n)
	}
	return ds, nil
}

// noneUsable says why none of the n records of a file can be used: bad
// supporting facts are named as such, apart from missing fields.
func noneUsable(ds *Dataset, n int) error {
	missing := ds.Skipped - ds.BadFactRecords
	if ds.BadFactRecords == 0 {
		return fmt.Errorf("%w: none of %d records has question, answer, context and supporting_facts", ErrFormat, n)
	}
	msg := fmt.Sprintf("none of %d records can be used: the supporting facts of %d name no sentence of %s context (%s)",
		n, ds.BadFactRecords, plural(ds.BadFactRecords, "it", "them"), ds.FirstBadFact)
	if missing > 0 {
		msg += fmt.Sprintf("; %d %s question, answer, context or supporting_facts", missing, plural(missing, "lacks", "lack"))
	}
	return &badFactsError{msg: msg}
}

type badFactsError struct{ msg string }

func (e *badFactsError) Error() string        { return e.msg }
func (e *badFactsError) Is(target error) bool { return target == ErrBadFacts }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n', 0xEF, 0xBB, 0xBF: // a byte order mark too
			_, _ = br.ReadByte()
			continue
		}
		return b[0], nil
	}
}

// convert makes a question of rec. bad describes each supporting fact that
// names no sentence of the context; ok is false when the record lacks a
// field or no supporting fact names a sentence.
func convert(rec record) (q Question, bad []string, ok bool) {
	q = Question{ID: rec.ID, Question: strings.TrimSpace(rec.Question), Answer: answerText(rec.Answer)}
	if q.Question == "" || q.Answer == "" || len(rec.Context) == 0 || len(rec.Facts) == 0 {
		return q, nil, false
	}
	byTitle := map[string]int{}
	for _, raw := range rec.Context {
		var pair []json.RawMessage
		var title string
		var sents []string
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 || json.Unmarshal(pair[0], &title) != nil || json.Unmarshal(pair[1], &sents) != nil {
			return q, nil, false
		}
		p := joinSentences(title, sents)
		if _, dup := byTitle[title]; !dup {
			byTitle[title] = len(q.Paragraphs)
		}
		q.Paragraphs = append(q.Paragraphs, p)
	}
	for _, raw := range rec.Facts {
		var pair []json.RawMessage
		var title string
		var idx int
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 || json.Unmarshal(pair[0], &title) != nil || json.Unmarshal(pair[1], &idx) != nil {
			bad = append(bad, fmt.Sprintf("the supporting fact %s is not [title, sentence index]", shortJSON(raw)))
			continue
		}
		pi, found := byTitle[title]
		if !found {
			bad = append(bad, fmt.Sprintf("the supporting fact %s names no paragraph of the context", shortJSON(raw)))
			continue
		}
		if n := len(q.Paragraphs[pi].Sentences); idx < 0 || idx >= n {
			bad = append(bad, fmt.Sprintf("the supporting fact %s names sentence %d of %q, which has %d (numbered from 0)", shortJSON(raw), idx, title, n))
			continue
		}
		p := &q.Paragraphs[pi]
		if !containsInt(p.Gold, idx) {
			p.Gold = append(p.Gold, idx)
		}
	}
	for _, p := range q.Paragraphs {
		if p.IsGold() {
			return q, bad, true
		}
	}
	return q, bad, false
}

// shortJSON is a value of the file for a message: compact, at most 60
// bytes.
func shortJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	if len(s) > 60 {
		s = strings.ToValidUTF8(s[:60], "") + "…"
	}
	return s
}

func answerText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return strings.TrimSpace(list[0])
	}
	return strings.TrimSpace(string(bytes.Trim(raw, `"`)))
}

// joinSentences makes a paragraph's text from its sentences (HotpotQA's
// carry their leading space, 2Wiki's do not) and records each one's span.
func joinSentences(title string, sents []string) Paragraph {
	p := Paragraph{Title: title}
	var b strings.Builder
	for _, s := range sents {
		if b.Len() > 0 && s != "" && !startsWithSpace(s) {
			b.WriteByte(' ')
		}
		start := b.Len()
		b.WriteString(s)
		st, en := start, b.Len()
		text := b.String()
		for st < en && isSpace(text[st]) {
			st++
		}
		for en > st && isSpace(text[en-1]) {
			en--
		}
		p.Sentences = append(p.Sentences, ev.Span{Start: st, End: en})
	}
	p.Text = b.String()
	return p
}

func startsWithSpace(s string) bool { return s != "" && isSpace(s[0]) }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
