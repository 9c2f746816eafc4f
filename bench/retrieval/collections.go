package retrieval

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ParseTRECDocs reads documents in TREC SGML form:
// <DOC><DOCNO>id</DOCNO> text </DOC>. Documents without a DOCNO or without
// text are skipped; the count of skipped ones is returned.
func ParseTRECDocs(data []byte) (docs []Doc, skipped int) {
	rest := data
	for {
		body, after, ok := between(rest, "<DOC>", "</DOC>")
		if !ok {
			return docs, skipped
		}
		rest = after
		id, text, ok := between(body, "<DOCNO>", "</DOCNO>")
		docID := strings.TrimSpace(string(id))
		clean := collapseSpace(string(text))
		if !ok || docID == "" || clean == "" {
			skipped++
			continue
		}
		docs = append(docs, Doc{ID: docID, Text: clean})
	}
}

// ParseTRECTopics reads topics in TREC form: <top><num>id</num><title>text
// </title></top>. Topics without a number or a title are skipped.
func ParseTRECTopics(data []byte) []Query {
	var qs []Query
	rest := data
	for {
		body, after, ok := between(rest, "<top>", "</top>")
		if !ok {
			return qs
		}
		rest = after
		num, _, ok1 := between(body, "<num>", "</num>")
		title, _, ok2 := between(body, "<title>", "</title>")
		id, text := strings.TrimSpace(string(num)), collapseSpace(string(title))
		if ok1 && ok2 && id != "" && text != "" {
			qs = append(qs, Query{ID: id, Text: text})
		}
	}
}

// ParseTRECQrels reads "query iteration doc grade" lines. Lines of another
// shape are counted as bad and skipped.
func ParseTRECQrels(data []byte) (qrels map[string]map[string]int, bad int) {
	return parseQrels(data, 4, 0, 2, 3)
}

// ParseCranfieldQrels reads "query doc grade" lines (the classic cranqrel
// layout). Query numbers in this file are the 1-based positions of the
// queries in cran.qry, not their .I numbers.
func ParseCranfieldQrels(data []byte) (qrels map[string]map[string]int, bad int) {
	return parseQrels(data, 3, 0, 1, 2)
}

// parseQrels reads judgement lines of exactly width fields, taking the
// query, document and grade from the given columns.
func parseQrels(data []byte, width, query, doc, grade int) (qrels map[string]map[string]int, bad int) {
	qrels = make(map[string]map[string]int)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != width {
			bad++
			continue
		}
		g, err := strconv.Atoi(f[grade])
		if err != nil {
			bad++
			continue
		}
		addJudgement(qrels, f[query], f[doc], g)
	}
	if sc.Err() != nil {
		bad++
	}
	return qrels, bad
}

func addJudgement(qrels map[string]map[string]int, q, doc string, grade int) {
	if qrels[q] == nil {
		qrels[q] = make(map[string]int)
	}
	qrels[q][doc] = grade
}

// DotRecord is one record of the SMART "dot" layout used by Cranfield:
// ".I id" starts a record, ".X" on a line of its own starts field X.
type DotRecord struct {
	ID     string
	Fields map[byte]string
}

// ParseDotRecords reads records in the dot layout. Text before the first
// ".I" line is ignored; field text has its whitespace collapsed.
func ParseDotRecords(data []byte) []DotRecord {
	var recs []DotRecord
	var cur *DotRecord
	var field byte
	var buf strings.Builder
	flush := func() {
		if cur != nil && field != 0 {
			cur.Fields[field] = collapseSpace(buf.String())
		}
		buf.Reset()
		field = 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		trimmed := strings.TrimRight(line, " \t\r")
		switch {
		case strings.HasPrefix(trimmed, ".I ") || trimmed == ".I":
			flush()
			recs = append(recs, DotRecord{ID: strings.TrimSpace(trimmed[2:]), Fields: make(map[byte]string)})
			cur = &recs[len(recs)-1]
		case len(trimmed) == 2 && trimmed[0] == '.' && trimmed[1] >= 'A' && trimmed[1] <= 'Z':
			flush()
			field = trimmed[1]
		default:
			if field != 0 {
				buf.WriteString(line)
				buf.WriteByte('\n')
			}
		}
	}
	flush()
	return recs
}

// CranfieldDoc turns a dot record into a document: the title from .T and
// the abstract from .W. Cranfield abstracts repeat the title as their first
// words; that repetition is removed so every word is indexed once (title
// and text are searched together). It returns false for a record with no
// words at all.
func CranfieldDoc(r DotRecord) (Doc, bool) {
	title, text := r.Fields['T'], r.Fields['W']
	if title != "" && strings.HasPrefix(text, title+" ") {
		text = strings.TrimSpace(text[len(title):])
	}
	if strings.TrimSpace(text) == "" {
		if title == "" {
			return Doc{}, false
		}
		text, title = title, ""
	}
	return Doc{ID: r.ID, Title: title, Text: text}, true
}

// LoadVaswani reads ir/vaswani-npl (TREC layout) under dataDir.
func LoadVaswani(dataDir string) (*Dataset, error) {
	dir := filepath.Join(dataDir, "ir", "vaswani-npl")
	raw, err := readFiles(dir, "doc-text.trec", "query-text.trec", "qrels")
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Name: "vaswani", Kind: Collection}
	var skipped int
	ds.Docs, skipped = ParseTRECDocs(raw[0])
	qrels, bad := ParseTRECQrels(raw[2])
	ds.Queries, ds.Notes = judgedQueries(ParseTRECTopics(raw[1]), qrels)
	if skipped > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%d empty documents skipped", skipped))
	}
	if bad > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%d malformed qrels lines skipped", bad))
	}
	ds.Graded = graded(ds.Queries)
	return ds, nil
}

// CranfieldGain turns a cranqrel grade into a gain. The original Cranfield
// scale runs from 1 (a complete answer to the question) to 4 (of minimum
// interest), so the gain is 5 − grade; -1 ("of no interest") and anything
// outside 1–4 gain nothing. (Some tools use the raw grades as gains instead,
// which ranks minimum-interest documents highest.)
func CranfieldGain(grade int) int {
	if grade < 1 || grade > 4 {
		return 0
	}
	return 5 - grade
}

// LoadCranfield reads ir/cranfield (classic layout) under dataDir; the
// judgements carry gains (see CranfieldGain).
func LoadCranfield(dataDir string) (*Dataset, error) {
	dir := filepath.Join(dataDir, "ir", "cranfield")
	raw, err := readFiles(dir, "cran.all.1400", "cran.qry", "cranqrel")
	if err != nil {
		return nil, err
	}
	ds := &Dataset{Name: "cranfield", Kind: Collection}
	skipped := 0
	for _, r := range ParseDotRecords(raw[0]) {
		if d, ok := CranfieldDoc(r); ok {
			ds.Docs = append(ds.Docs, d)
		} else {
			skipped++
		}
	}
	var topics []Query
	for i, r := range ParseDotRecords(raw[1]) {
		if text := r.Fields['W']; text != "" {
			topics = append(topics, Query{ID: strconv.Itoa(i + 1), Text: text})
		}
	}
	qrels, bad := ParseCranfieldQrels(raw[2])
	for _, rel := range qrels {
		for id, g := range rel {
			rel[id] = CranfieldGain(g)
		}
	}
	ds.Queries, ds.Notes = judgedQueries(topics, qrels)
	ds.Notes = append(ds.Notes, "graded gains on the original Cranfield scale: grade 1 (complete answer) = 4, 2 = 3, 3 = 2, 4 (minimum interest) = 1; grade -1 is not relevant")
	if skipped > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%d empty documents skipped", skipped))
	}
	if bad > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%d malformed qrels lines skipped", bad))
	}
	ds.Graded = graded(ds.Queries)
	return ds, nil
}

// judgedQueries attaches judgements to topics and drops topics without a
// relevant document.
func judgedQueries(topics []Query, qrels map[string]map[string]int) ([]Query, []string) {
	var out []Query
	dropped := 0
	for _, q := range topics {
		q.Rel = qrels[q.ID]
		if countRelevant(q.Rel) == 0 {
			dropped++
			continue
		}
		out = append(out, q)
	}
	var notes []string
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d queries without a relevant document skipped", dropped))
	}
	return out, notes
}

func graded(qs []Query) bool {
	for _, q := range qs {
		for _, g := range q.Rel {
			if g > 1 {
				return true
			}
		}
	}
	return false
}

func readFiles(dir string, names ...string) ([][]byte, error) {
	out := make([][]byte, len(names))
	for i, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// between returns the bytes between the first open tag and the next close
// tag after it, and what follows the close tag.
func between(data []byte, open, close string) (inner, rest []byte, ok bool) {
	i := bytes.Index(data, []byte(open))
	if i < 0 {
		return nil, nil, false
	}
	start := i + len(open)
	j := bytes.Index(data[start:], []byte(close))
	if j < 0 {
		return nil, nil, false
	}
	return data[start : start+j], data[start+j+len(close):], true
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
