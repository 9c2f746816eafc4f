package retrieval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Paragraph is one context paragraph of a multi-hop question.
type Paragraph struct {
	Title      string
	Text       string
	Supporting bool
}

// MultihopQuestion is a question with its context paragraphs.
type MultihopQuestion struct {
	ID         string
	Question   string
	Paragraphs []Paragraph
}

// multihopLine holds the fields of the three layouts found in the data:
// IRCoT's processed form (question_id, question_text, contexts), MuSiQue
// (id, question, paragraphs) and HotpotQA / 2WikiMultiHopQA (_id, question,
// context as [title, [sentences]] pairs, supporting_facts as [title, index]).
type multihopLine struct {
	QuestionID      string            `json:"question_id"`
	QuestionText    string            `json:"question_text"`
	Contexts        []jsonParagraph   `json:"contexts"`
	ID              json.RawMessage   `json:"id"`
	HotpotID        string            `json:"_id"`
	Question        string            `json:"question"`
	Paragraphs      []jsonParagraph   `json:"paragraphs"`
	Context         []json.RawMessage `json:"context"`
	SupportingFacts []json.RawMessage `json:"supporting_facts"`
}

type jsonParagraph struct {
	Title      string `json:"title"`
	Text       string `json:"paragraph_text"`
	Supporting bool   `json:"is_supporting"`
}

// MaxMultihopLine bounds one line of a multi-hop file.
const MaxMultihopLine = 16 << 20

// ParseMultihop reads a JSON Lines file of multi-hop questions in any of the
// three layouts. Questions with no paragraphs or no supporting paragraph
// are skipped and counted; a line that is not a JSON object is an error
// naming the line.
func ParseMultihop(r io.Reader) (qs []MultihopQuestion, skipped int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, rerr := readLine(br, MaxMultihopLine)
		if len(bytes.TrimSpace(line)) > 0 {
			q, perr := parseMultihopLine(line)
			if perr != nil {
				return qs, skipped, fmt.Errorf("line %d: %w", lineNo, perr)
			}
			if hasSupport(q) {
				qs = append(qs, q)
			} else {
				skipped++
			}
		}
		if errors.Is(rerr, io.EOF) {
			return qs, skipped, nil
		}
		if rerr != nil {
			return qs, skipped, fmt.Errorf("line %d: %w", lineNo, rerr)
		}
	}
}

// errLongLine is returned for a line longer than the limit.
var errLongLine = errors.New("line too long")

func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			return nil, errLongLine
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

func hasSupport(q MultihopQuestion) bool {
	for _, p := range q.Paragraphs {
		if p.Supporting {
			return true
		}
	}
	return false
}

func parseMultihopLine(line []byte) (MultihopQuestion, error) {
	var l multihopLine
	if err := json.Unmarshal(line, &l); err != nil {
		return MultihopQuestion{}, fmt.Errorf("not a multi-hop question object: %w", err)
	}
	q := MultihopQuestion{ID: firstNonEmpty(l.QuestionID, rawID(l.ID), l.HotpotID), Question: firstNonEmpty(l.QuestionText, l.Question)}
	for _, p := range append(l.Contexts, l.Paragraphs...) {
		q.Paragraphs = append(q.Paragraphs, Paragraph(p))
	}
	if len(l.Context) > 0 {
		support := make(map[string]bool)
		for _, raw := range l.SupportingFacts {
			var fact []json.RawMessage
			var title string
			if json.Unmarshal(raw, &fact) == nil && len(fact) > 0 && json.Unmarshal(fact[0], &title) == nil {
				support[title] = true
			}
		}
		for _, raw := range l.Context {
			var pair []json.RawMessage
			var title string
			var sents []string
			if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 ||
				json.Unmarshal(pair[0], &title) != nil || json.Unmarshal(pair[1], &sents) != nil {
				return MultihopQuestion{}, errors.New(`"context" entry is not a [title, [sentences]] pair`)
			}
			q.Paragraphs = append(q.Paragraphs, Paragraph{Title: title, Text: joinSentences(sents), Supporting: support[title]})
		}
	}
	for i := range q.Paragraphs {
		q.Paragraphs[i].Title = collapseSpace(q.Paragraphs[i].Title)
		q.Paragraphs[i].Text = collapseSpace(q.Paragraphs[i].Text)
	}
	q.Question = collapseSpace(q.Question)
	return q, nil
}

func rawID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// joinSentences concatenates sentences, adding a space where neither side
// has one (HotpotQA sentences carry their leading space, 2Wiki's do not).
func joinSentences(sents []string) string {
	var b strings.Builder
	for _, s := range sents {
		if b.Len() > 0 && s != "" {
			last, _ := utf8.DecodeLastRuneInString(b.String())
			first, _ := utf8.DecodeRuneInString(s)
			if !unicode.IsSpace(last) && !unicode.IsSpace(first) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(s)
	}
	return b.String()
}

// PoolParagraphs pools the paragraphs of questions into one dataset:
// paragraphs with the same title and text become one document, and each
// question's supporting paragraphs are its relevant set. maxDocs > 0 stops
// adding questions before the pool would grow past maxDocs.
func PoolParagraphs(name string, qs []MultihopQuestion, maxDocs int) *Dataset {
	ds := &Dataset{Name: name, Kind: Pool}
	ids := make(map[string]string)
	for _, q := range qs {
		fresh := 0
		seen := make(map[string]bool)
		for _, p := range q.Paragraphs {
			k := p.Title + "\x00" + p.Text
			if _, ok := ids[k]; !ok && !seen[k] && strings.TrimSpace(p.Text) != "" {
				seen[k] = true
				fresh++
			}
		}
		if maxDocs > 0 && len(ds.Docs)+fresh > maxDocs {
			break
		}
		rel := make(map[string]int)
		for _, p := range q.Paragraphs {
			if strings.TrimSpace(p.Text) == "" {
				continue
			}
			k := p.Title + "\x00" + p.Text
			id, ok := ids[k]
			if !ok {
				id = fmt.Sprintf("p%06d", len(ds.Docs)+1)
				ids[k] = id
				ds.Docs = append(ds.Docs, Doc{ID: id, Title: p.Title, Text: p.Text})
			}
			if p.Supporting {
				rel[id] = 1
			}
		}
		if len(rel) > 0 && q.Question != "" {
			ds.Queries = append(ds.Queries, Query{ID: q.ID, Text: q.Question, Rel: rel})
		}
	}
	return ds
}

// multihopFiles are the pools the benchmark builds: name, file under
// shared/data/multihop.
var multihopFiles = []struct{ name, path string }{
	{"hotpotqa-ircot", "hotpotqa-ircot-dev500/dev_subsampled.jsonl"},
	{"migres-hotpotqa", "migres-dev200/hotpot.json"},
	{"migres-musique", "migres-dev200/musique.json"},
	{"migres-2wiki", "migres-dev200/wikihop.json"},
}

// LoadPool reads one multi-hop file under dataDir/multihop and pools it.
func LoadPool(dataDir, name, rel string, maxDocs int) (*Dataset, error) {
	f, err := os.Open(filepath.Join(dataDir, "multihop", rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qs, skipped, err := ParseMultihop(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	ds := PoolParagraphs(name, qs, maxDocs)
	if skipped > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%d questions without paragraphs or supporting paragraphs skipped", skipped))
	}
	return ds, nil
}
