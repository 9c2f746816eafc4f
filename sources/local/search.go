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

type posting struct {
	doc, tf, dl uint64
}

// postings reads every posting of term in field, with its frequency and the
// document's field length.
func postings(ctx context.Context, r index.IndexReader, field, term string, buf []posting) ([]posting, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, true, true, false)
	if err != nil {
		return nil, err
	}
	defer tfr.Close()
	buf = buf[:0]
	var tfd index.TermFieldDoc
	for n := 0; ; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d, err := tfr.Next(&tfd)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return buf, nil
		}
		buf = append(buf, posting{doc: binary.BigEndian.Uint64(d.ID), tf: d.Freq, dl: lengthFromNorm(d.Norm)})
	}
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

// search ranks the passages of one open index for query.
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
	body := bm25.Collection{N: n, TotalLength: uint64(max(h.stats.BodyTokens, 0))}
	acc := bm25.NewAccumulator(opts.BM25, body, maxDocNumber(r))
	defer acc.Release()
	var buf []posting
	for _, t := range terms {
		if buf, err = postings(ctx, r, fieldBody, t.term, buf); err != nil {
			return nil, err
		}
		if len(buf) == 0 {
			continue
		}
		w := float64(t.count) * bm25.IDF(n, uint64(len(buf)))
		for _, p := range buf {
			acc.Add(p.doc, p.tf, p.dl, w)
		}
	}
	if opts.TitleBoost > 0 {
		titles := bm25.Collection{N: n, TotalLength: uint64(max(h.stats.TitleTokens, 0))}
		avg := titles.AvgLength()
		for _, t := range terms {
			if buf, err = postings(ctx, r, fieldTitle, t.term, buf); err != nil {
				return nil, err
			}
			if len(buf) == 0 {
				continue
			}
			w := opts.TitleBoost * float64(t.count) * bm25.IDF(n, uint64(len(buf)))
			for _, p := range buf {
				acc.AddWithAvg(p.doc, p.tf, p.dl, w, avg)
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
