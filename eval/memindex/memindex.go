// Package memindex is a small in-memory BM25 index over title+text
// passages, analysed with Bleve's English analyzer (the one the local
// corpora use) and scored with the project's textbook BM25
// (sources/local/bm25). It backs the evaluation's search-engine stand-in and
// the engine benchmark's in-memory sources, where a few thousand passages
// are indexed at start-up and searched many times.
package memindex

import (
	"errors"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"

	"github.com/prefrag/prefrag/sources/local/bm25"
)

// Doc is one passage to index.
type Doc struct {
	ID    string
	Title string
	Text  string
	URL   string
}

// Hit is one search result, best first.
type Hit struct {
	Doc   Doc
	Score float64
}

type posting struct {
	doc uint32
	tf  uint32
}

// Index is an immutable in-memory BM25 index, safe for concurrent searches.
type Index struct {
	docs     []Doc
	lengths  []uint32
	postings map[string][]posting
	coll     bm25.Collection
}

var (
	analyzerOnce sync.Once
	analyzer     analysis.Analyzer
)

func english() analysis.Analyzer {
	analyzerOnce.Do(func() {
		analyzer = bleve.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)
	})
	return analyzer
}

// ErrDuplicateID is returned by New when two documents share an id.
var ErrDuplicateID = errors.New("duplicate document id")

// Terms analyses text as the index does: lower-cased, English stop words
// removed, possessives dropped, stemmed.
func Terms(text string) []string {
	toks := english().Analyze([]byte(text))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		out = append(out, string(t.Term))
	}
	return out
}

// New indexes docs (title and text searched together).
func New(docs []Doc) (*Index, error) {
	ix := &Index{docs: make([]Doc, len(docs)), lengths: make([]uint32, len(docs)), postings: map[string][]posting{}}
	seen := make(map[string]bool, len(docs))
	var total uint64
	for i, d := range docs {
		if seen[d.ID] {
			return nil, errors.Join(ErrDuplicateID, errors.New(d.ID))
		}
		seen[d.ID] = true
		ix.docs[i] = d
		tf := map[string]uint32{}
		terms := Terms(d.Title + "\n" + d.Text)
		for _, t := range terms {
			tf[t]++
		}
		ix.lengths[i] = uint32(len(terms))
		total += uint64(len(terms))
		for t, n := range tf {
			ix.postings[t] = append(ix.postings[t], posting{doc: uint32(i), tf: n})
		}
	}
	ix.coll = bm25.Collection{N: uint64(len(docs)), TotalLength: total}
	return ix, nil
}

// Len is the number of documents.
func (ix *Index) Len() int { return len(ix.docs) }

// Search returns the k best documents for query, best first; ties are
// broken by id, so a search is deterministic.
func (ix *Index) Search(query string, k int) []Hit {
	if k <= 0 {
		return nil
	}
	weights := map[string]float64{}
	var order []string
	for _, t := range Terms(query) {
		if _, ok := weights[t]; !ok {
			order = append(order, t)
		}
		weights[t]++
	}
	// Terms are added in a fixed order so scores are summed the same way
	// every time.
	sort.Strings(order)
	scores := make(map[uint32]float64)
	avgdl := ix.coll.AvgLength()
	for _, t := range order {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		w := weights[t] * bm25.IDF(ix.coll.N, uint64(len(ps)))
		for _, p := range ps {
			scores[p.doc] += w * bm25.Default.TermScore(uint64(p.tf), uint64(ix.lengths[p.doc]), avgdl)
		}
	}
	top := make([]Hit, 0, len(scores))
	for d, sc := range scores {
		top = append(top, Hit{Doc: ix.docs[d], Score: sc})
	}
	sort.Slice(top, func(i, j int) bool {
		if top[i].Score != top[j].Score {
			return top[i].Score > top[j].Score
		}
		return top[i].Doc.ID < top[j].Doc.ID
	})
	if len(top) > k {
		top = top[:k]
	}
	return top
}
