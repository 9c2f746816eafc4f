package retrieval

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

func FuzzParseTREC(f *testing.F) {
	f.Add([]byte(trecDocs))
	f.Add([]byte("<top><num>1</num><title>X</title></top><DOC><DOCNO></DOCNO></DOC>"))
	f.Add([]byte("<DOC><DOCNO>1</DOC></DOCNO>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, skipped := ParseTRECDocs(data)
		if skipped < 0 || len(docs) > bytes.Count(data, []byte("</DOC>")) {
			t.Fatalf("%d docs, %d skipped from %d </DOC>", len(docs), skipped, bytes.Count(data, []byte("</DOC>")))
		}
		for _, d := range docs {
			if d.ID == "" || d.Text == "" || d.Text != strings.TrimSpace(d.Text) {
				t.Fatalf("bad doc %#v", d)
			}
		}
		for _, q := range ParseTRECTopics(data) {
			if q.ID == "" || q.Text == "" {
				t.Fatalf("bad topic %#v", q)
			}
		}
	})
}

func FuzzParseQrels(f *testing.F) {
	f.Add([]byte("1 0 1239 1\n1 184 2\n2 486 -1\n"))
	f.Add([]byte("a b c d e\n\n\r\n1 0 x 99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, parse := range []func([]byte) (map[string]map[string]int, int){ParseTRECQrels, ParseCranfieldQrels} {
			qrels, bad := parse(data)
			if bad < 0 {
				t.Fatalf("bad = %d", bad)
			}
			for q, docs := range qrels {
				if q == "" || len(docs) == 0 {
					t.Fatalf("empty query or judgements: %q %v", q, docs)
				}
			}
		}
	})
}

func FuzzParseDotRecords(f *testing.F) {
	f.Add([]byte(cranDocs))
	f.Add([]byte(".I\n.W\n.I 2\n.T\n.T\ntitle\n.X\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range ParseDotRecords(data) {
			for k, v := range r.Fields {
				if k < 'A' || k > 'Z' || v != strings.TrimSpace(v) {
					t.Fatalf("field %q = %q", k, v)
				}
			}
			if d, ok := CranfieldDoc(r); ok && strings.TrimSpace(d.Text) == "" {
				t.Fatalf("document with no text: %#v", d)
			}
		}
	})
}

func FuzzParseMultihop(f *testing.F) {
	f.Add([]byte(multihopLines))
	f.Add([]byte(`{"_id": 1, "context": [["t", ["a", 2]]], "supporting_facts": [[3, 0]]}`))
	f.Add([]byte(`{"contexts": [{"title": "t", "paragraph_text": "x", "is_supporting": true}]}` + "\n\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, skipped, err := ParseMultihop(bytes.NewReader(data))
		if skipped < 0 {
			t.Fatalf("skipped = %d", skipped)
		}
		for _, q := range qs {
			if !hasSupport(q) {
				t.Fatalf("question without support kept: %#v", q)
			}
		}
		if err == nil {
			ds := PoolParagraphs("fuzz", qs, 0)
			ids := make(map[string]bool)
			for _, d := range ds.Docs {
				if ids[d.ID] {
					t.Fatalf("duplicate pooled id %s", d.ID)
				}
				ids[d.ID] = true
			}
			for _, q := range ds.Queries {
				for id := range q.Rel {
					if !ids[id] {
						t.Fatalf("relevant id %s not in the pool", id)
					}
				}
			}
		}
	})
}

func FuzzFTS5MatchQuery(f *testing.F) {
	for _, s := range []string{"What is BM25?", `a:"b" NEAR(c d) -e* ^f`, "Émile\u0301 \x00 \"", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		m := FTS5MatchQuery(q)
		if m == "" {
			return
		}
		// Only quoted words of letters, digits and marks, joined by OR.
		for _, term := range strings.Split(m, " OR ") {
			if len(term) < 3 || term[0] != '"' || term[len(term)-1] != '"' {
				t.Fatalf("term %q in %q is not a quoted word", term, m)
			}
			for _, r := range term[1 : len(term)-1] {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r) {
					t.Fatalf("term %q holds %q", term, r)
				}
			}
		}
	})
}
