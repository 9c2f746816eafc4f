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
	// Skipped counts records without context or supporting facts;
	// BadFacts the supporting facts naming no sentence of the context.
	Skipped, BadFacts int
}

// ErrFormat says a file is not a HotpotQA/2Wiki question file.
var ErrFormat = errors.New("not a HotpotQA or 2WikiMultiHopQA file")

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
		ds.BadFacts += bad
		if !ok {
			ds.Skipped++
			continue
		}
		ds.Questions = append(ds.Questions, q)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: no records", ErrFormat)
	}
	if len(ds.Questions) == 0 {
		return nil, fmt.Errorf("%w: none of %d records has question, answer, context and supporting_facts", ErrFormat, n)
	}
	return ds, nil
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

func convert(rec record) (Question, int, bool) {
	q := Question{ID: rec.ID, Question: strings.TrimSpace(rec.Question), Answer: answerText(rec.Answer)}
	if q.Question == "" || q.Answer == "" || len(rec.Context) == 0 || len(rec.Facts) == 0 {
		return q, 0, false
	}
	byTitle := map[string]int{}
	for _, raw := range rec.Context {
		var pair []json.RawMessage
		var title string
		var sents []string
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 || json.Unmarshal(pair[0], &title) != nil || json.Unmarshal(pair[1], &sents) != nil {
			return q, 0, false
		}
		p := joinSentences(title, sents)
		if _, dup := byTitle[title]; !dup {
			byTitle[title] = len(q.Paragraphs)
		}
		q.Paragraphs = append(q.Paragraphs, p)
	}
	bad := 0
	for _, raw := range rec.Facts {
		var pair []json.RawMessage
		var title string
		var idx int
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 || json.Unmarshal(pair[0], &title) != nil || json.Unmarshal(pair[1], &idx) != nil {
			bad++
			continue
		}
		pi, ok := byTitle[title]
		if !ok || idx < 0 || idx >= len(q.Paragraphs[pi].Sentences) {
			bad++
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
