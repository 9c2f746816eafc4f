package local

// The search implementation before issue 12 (accumulate every posting of the
// rare terms, Kth rescans, sort of every touched document), kept verbatim for
// benchmarks that compare it with the current one in the same run.

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

var _ = math.Inf

// SearchLegacy is Corpus.Search with the previous implementation.
func SearchLegacy(ctx context.Context, c *Corpus, query string, k int) ([]sources.Document, error) {
	h, err := c.acquire()
	if err != nil {
		return nil, err
	}
	defer c.release(h)
	heuristics := c.opts.TitleHeuristics && k > 0
	n := k
	if heuristics {
		n = max(k, TitleCandidates)
	}
	hits, err := searchLegacy(ctx, h, query, n, c.opts)
	if err != nil {
		return nil, err
	}
	if heuristics {
		hits = rerankByTitle(query, hits, k)
	}
	for i := range hits {
		hits[i].Source = c.Name()
	}
	return hits, nil
}

// maxDocNumberLegacy bounds the document numbers of a reader (live and deleted
// passages of every segment); 0 when the index is not scorch.
func maxDocNumberLegacy(r index.IndexReader) uint64 {
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

// scoreListLegacy is one query term in one field: its postings, query weight
// (count × idf × field boost), the field's mean length, and the most one
// posting can add.
type scoreListLegacy struct {
	field, term string
	weight, avg float64
	bound       float64
	tfr         index.TermFieldReader
}

// pruningLegacy can be switched off by tests, to compare with exhaustive scoring.
var pruningLegacy = true

// openListsLegacy opens the postings of every query term (and, with a title boost,
// of every term in titles), ordered by decreasing bound, then field and
// term: scores are always summed in this order, so they do not depend on
// which documents pruningLegacy skipped, nor on the segment layout.
func openListsLegacy(ctx context.Context, r index.IndexReader, h *handle, terms []queryTerm, n uint64, opts Options) ([]*scoreListLegacy, error) {
	var lists []*scoreListLegacy
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
			lists = append(lists, &scoreListLegacy{field: field, term: t.term, weight: w, avg: avg, bound: opts.BM25.UpperBound(w), tfr: tfr})
		}
		return nil
	}
	err := add(fieldBody, 1, h.stats.BodyTokens)
	if err == nil && opts.TitleBoost > 0 {
		err = add(fieldTitle, opts.TitleBoost, h.stats.TitleTokens)
	}
	if err != nil {
		closeListsLegacy(lists)
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

func closeListsLegacy(lists []*scoreListLegacy) {
	for _, l := range lists {
		_ = l.tfr.Close()
	}
}

// boundSumLegacy is the most lists can add to one document, rounded up.
func boundSumLegacy(lists []*scoreListLegacy) float64 {
	s := 0.0
	for _, l := range lists {
		s += l.bound
	}
	return s*(1+1e-9) + 1e-12
}

func decodePostingLegacy(d *index.TermFieldDoc) (doc, tf, dl uint64) {
	return binary.BigEndian.Uint64(d.ID), d.Freq, lengthFromNorm(d.Norm)
}

// scanLegacy adds every posting of a list.
func scanLegacy(ctx context.Context, l *scoreListLegacy, acc *accumulatorLegacy) error {
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
		doc, tf, dl := decodePostingLegacy(d)
		acc.AddWithAvg(doc, tf, dl, l.weight, l.avg)
	}
}

// probeLegacy adds a list's postings for the given documents only (ascending),
// skipping through the postings instead of reading them all.
func probeLegacy(ctx context.Context, l *scoreListLegacy, docs []uint64, acc *accumulatorLegacy) error {
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
				_, tf, dl := decodePostingLegacy(cur)
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
		curDoc, _, _ = decodePostingLegacy(d)
		if curDoc == want {
			_, tf, dl := decodePostingLegacy(d)
			acc.AddWithAvg(want, tf, dl, l.weight, l.avg)
		}
	}
	return nil
}

// search ranks the passages of one open index for query by BM25, exactly,
// with MaxScore pruningLegacy: rare terms are read in full; once the k-th best
// partial score exceeds what all remaining terms could add, documents not yet
// seen cannot reach the top k, and the remaining (common) terms are only
// probed for the documents still in the running.
func searchLegacy(ctx context.Context, h *handle, query string, k int, opts Options) ([]sources.Document, error) {
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
	lists, err := openListsLegacy(ctx, r, h, terms, n, opts)
	if err != nil {
		return nil, err
	}
	defer closeListsLegacy(lists)
	acc := newAccumulatorLegacy(opts.BM25, bm25.Collection{N: n, TotalLength: uint64(max(h.stats.BodyTokens, 0))}, maxDocNumberLegacy(r))
	defer acc.Release()

	i := 0
	for ; i < len(lists); i++ {
		if theta, ok := acc.Kth(k); pruningLegacy && ok && boundSumLegacy(lists[i:]) < theta {
			break
		}
		if err := scanLegacy(ctx, lists[i], acc); err != nil {
			return nil, err
		}
	}
	if i < len(lists) {
		docs := acc.Docs()
		for j := i; j < len(lists); j++ {
			theta, _ := acc.Kth(k)
			rest := boundSumLegacy(lists[j:])
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
			if err := probeLegacy(ctx, lists[j], docs, acc); err != nil {
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

// storedDocument loads the stored fields of the passage with external id
// (the previous implementation's lookup, also used by tests).
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
