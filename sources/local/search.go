package local

import (
	"context"
	"encoding/binary"
	"math"
	"sort"

	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local/bm25"
)

// MaxQueryTerms bounds the distinct terms of one query.
const MaxQueryTerms = 256

// queryTerm is one distinct analysed term and how often the query has it.
type queryTerm struct {
	term  string
	count int
}

// analyzeQuery runs the en analyzer over the query text and returns its
// distinct terms, sorted, so scores are summed in a fixed order.
func analyzeQuery(h *handle, query string) []queryTerm {
	counts := make(map[string]int)
	for _, tok := range h.en.Analyze([]byte(query)) {
		counts[string(tok.Term)]++
	}
	terms := make([]queryTerm, 0, len(counts))
	for t, n := range counts {
		terms = append(terms, queryTerm{term: t, count: n})
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i].term < terms[j].term })
	if len(terms) > MaxQueryTerms {
		terms = terms[:MaxQueryTerms]
	}
	return terms
}

// lengthFromNorm recovers a field's exact token count from the norm Bleve
// keeps with each posting (1/√length, stored as a float32; exact for lengths
// far beyond a passage).
func lengthFromNorm(norm float64) uint64 {
	if norm <= 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return 0
	}
	return uint64(math.Round(1 / (norm * norm)))
}

// maxDocNumber bounds the document numbers of a reader (live and deleted
// passages of every segment); 0 when the index is not scorch.
func maxDocNumber(r index.IndexReader) uint64 {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0
	}
	var n uint64
	for _, s := range snap.Segments() {
		n += uint64(s.FullSize())
	}
	return n
}

// scoreList is one query term in one field: its postings, query weight
// (count × idf × field boost), the field's mean length, and the most one
// posting can add.
type scoreList struct {
	field, term string
	weight, avg float64
	bound       float64
	tfr         index.TermFieldReader
}

// pruning can be switched off by tests, to compare with exhaustive scoring.
var pruning = true

// openLists opens the postings of every query term (and, with a title boost,
// of every term in titles), ordered by decreasing bound, then field and
// term: scores are always summed in this order, so they do not depend on
// which documents pruning skipped, nor on the segment layout.
func openLists(ctx context.Context, r index.IndexReader, h *handle, terms []queryTerm, n uint64, opts Options) ([]*scoreList, error) {
	var lists []*scoreList
	add := func(field string, boost float64, total int64) error {
		avg := bm25.Collection{N: n, TotalLength: uint64(max(total, 0))}.AvgLength()
		for _, t := range terms {
			tfr, err := r.TermFieldReader(ctx, []byte(t.term), field, true, true, false)
			if err != nil {
				return err
			}
			df := tfr.Count()
			if df == 0 {
				_ = tfr.Close()
				continue
			}
			w := boost * float64(t.count) * bm25.IDF(n, df)
			lists = append(lists, &scoreList{field: field, term: t.term, weight: w, avg: avg, bound: opts.BM25.UpperBound(w), tfr: tfr})
		}
		return nil
	}
	err := add(fieldBody, 1, h.stats.BodyTokens)
	if err == nil && opts.TitleBoost > 0 {
		err = add(fieldTitle, opts.TitleBoost, h.stats.TitleTokens)
	}
	if err != nil {
		closeLists(lists)
		return nil, err
	}
	sort.Slice(lists, func(i, j int) bool {
		a, b := lists[i], lists[j]
		if a.bound != b.bound {
			return a.bound > b.bound
		}
		if a.field != b.field {
			return a.field < b.field
		}
		return a.term < b.term
	})
	return lists, nil
}

func closeLists(lists []*scoreList) {
	for _, l := range lists {
		_ = l.tfr.Close()
	}
}

// boundSum is the most lists can add to one document, rounded up.
func boundSum(lists []*scoreList) float64 {
	s := 0.0
	for _, l := range lists {
		s += l.bound
	}
	return s*(1+1e-9) + 1e-12
}

func decodePosting(d *index.TermFieldDoc) (doc, tf, dl uint64) {
	return binary.BigEndian.Uint64(d.ID), d.Freq, lengthFromNorm(d.Norm)
}

// scan adds every posting of a list.
func scan(ctx context.Context, l *scoreList, acc *bm25.Accumulator) error {
	var tfd index.TermFieldDoc
	for n := 0; ; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		d, err := l.tfr.Next(&tfd)
		if err != nil || d == nil {
			return err
		}
		doc, tf, dl := decodePosting(d)
		acc.AddWithAvg(doc, tf, dl, l.weight, l.avg)
	}
}

// probe adds a list's postings for the given documents only (ascending),
// skipping through the postings instead of reading them all.
func probe(ctx context.Context, l *scoreList, docs []uint64, acc *bm25.Accumulator) error {
	var tfd index.TermFieldDoc
	var cur *index.TermFieldDoc
	var curDoc uint64
	idBuf := make([]byte, 8)
	for i, want := range docs {
		if i&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if cur != nil && curDoc >= want {
			if curDoc == want {
				_, tf, dl := decodePosting(cur)
				acc.AddWithAvg(want, tf, dl, l.weight, l.avg)
			}
			continue
		}
		binary.BigEndian.PutUint64(idBuf, want)
		d, err := l.tfr.Advance(index.IndexInternalID(idBuf), &tfd)
		if err != nil {
			return err
		}
		if d == nil {
			return nil // no postings left
		}
		cur = d
		curDoc, _, _ = decodePosting(d)
		if curDoc == want {
			_, tf, dl := decodePosting(d)
			acc.AddWithAvg(want, tf, dl, l.weight, l.avg)
		}
	}
	return nil
}

// search ranks the passages of one open index for query by BM25, exactly,
// with MaxScore pruning: rare terms are read in full; once the k-th best
// partial score exceeds what all remaining terms could add, documents not yet
// seen cannot reach the top k, and the remaining (common) terms are only
// probed for the documents still in the running.
func search(ctx context.Context, h *handle, query string, k int, opts Options) ([]sources.Document, error) {
	if k <= 0 {
		return nil, nil
	}
	terms := analyzeQuery(h, query)
	if len(terms) == 0 {
		return nil, nil
	}
	adv, err := h.idx.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	n, err := r.DocCount()
	if err != nil {
		return nil, err
	}
	lists, err := openLists(ctx, r, h, terms, n, opts)
	if err != nil {
		return nil, err
	}
	defer closeLists(lists)
	acc := bm25.NewAccumulator(opts.BM25, bm25.Collection{N: n, TotalLength: uint64(max(h.stats.BodyTokens, 0))}, maxDocNumber(r))
	defer acc.Release()

	i := 0
	for ; i < len(lists); i++ {
		if theta, ok := acc.Kth(k); pruning && ok && boundSum(lists[i:]) < theta {
			break
		}
		if err := scan(ctx, lists[i], acc); err != nil {
			return nil, err
		}
	}
	if i < len(lists) {
		docs := acc.Docs()
		for j := i; j < len(lists); j++ {
			theta, _ := acc.Kth(k)
			rest := boundSum(lists[j:])
			kept := docs[:0]
			for _, d := range docs {
				if acc.Score(d)+rest >= theta {
					kept = append(kept, d)
				}
			}
			docs = kept
			if len(docs) == 0 {
				break
			}
			if err := probe(ctx, lists[j], docs, acc); err != nil {
				return nil, err
			}
		}
	}

	idBuf := make([]byte, 8)
	hits, err := acc.Top(k, func(doc uint64) (string, error) {
		binary.BigEndian.PutUint64(idBuf, doc)
		return r.ExternalID(index.IndexInternalID(idBuf))
	})
	if err != nil {
		return nil, err
	}
	docs := make([]sources.Document, 0, len(hits))
	for _, hit := range hits {
		d, err := storedDocument(r, hit.ID)
		if err != nil {
			return nil, err
		}
		d.Score = hit.Score
		docs = append(docs, d)
	}
	return docs, nil
}

// storedDocument loads the stored fields of one passage.
func storedDocument(r index.IndexReader, id string) (sources.Document, error) {
	d := sources.Document{ID: id}
	doc, err := r.Document(id)
	if err != nil || doc == nil {
		return d, err
	}
	doc.VisitFields(func(f index.Field) {
		switch f.Name() {
		case fieldTitle:
			d.Title = string(f.Value())
		case fieldText:
			d.Text = string(f.Value())
		case fieldLoc:
			d.Locator = string(f.Value())
		case fieldURL:
			d.URL = string(f.Value())
		}
	})
	return d, nil
}
