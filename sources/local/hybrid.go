package local

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local/vector"
)

// Search by meaning: the vector leg ranks passages by the cosine of their
// vectors with the query's (embedded by Options.Embedder with the model
// that embedded the corpus); dense returns that ranking, hybrid fuses it
// with the BM25 ranking by reciprocal rank fusion (sources.Fuse). Each
// passage keeps its rank in each leg.

// VectorsDamagedError says a corpus's vectors cannot be read; its text
// index is not affected. To the engine it is an unavailable source.
type VectorsDamagedError struct {
	Name string
	Err  error
}

func (e *VectorsDamagedError) Error() string {
	return fmt.Sprintf("corpus %q's vectors cannot be read (%v); embed it again with `prefrag index --reembed --corpus %s`", e.Name, e.Err, e.Name)
}

func (e *VectorsDamagedError) Unwrap() error { return e.Err }

func (e *VectorsDamagedError) Is(target error) bool { return target == sources.ErrUnavailable }

// vectorHandle is a handle's vector index, opened once.
type vectorHandle struct {
	once sync.Once
	ix   *vector.Index
	err  error
}

// close releases the vectors, if they were opened.
func (v *vectorHandle) close() error {
	if v.ix != nil {
		return v.ix.Close()
	}
	return nil
}

func (v *vectorHandle) open(path string) (*vector.Index, error) {
	v.once.Do(func() { v.ix, v.err = vector.Open(vector.Dir(path)) })
	return v.ix, v.err
}

// Vectors says which model embedded the corpus, and ErrNone-matching
// vector.ErrNone when it has no vectors.
func (c *Corpus) Vectors() (vector.Status, error) {
	return vector.ReadStatus(vector.Dir(c.path))
}

// EmbedCounts are the embedding calls and tokens of the embedder of
// queries so far (0 without one).
func (c *Corpus) EmbedCounts() (calls, tokens int64) {
	if e, ok := c.opts.Embedder.(counted); ok {
		return e.Counts()
	}
	return 0, 0
}

// CheckEmbedModel refuses, before any search, an embedder of another model
// than the corpus's vectors (*EmbedModelError); a corpus without vectors
// or a search by words alone passes.
func (c *Corpus) CheckEmbedModel() error {
	if c.opts.Embedder == nil || c.opts.Retrieval == sources.RetrievalBM25 {
		return nil
	}
	meta, err := vector.ReadMeta(vector.Dir(c.path))
	if err != nil || sameModel(meta.Model, c.opts.Embedder.Model()) {
		return nil
	}
	return &EmbedModelError{Corpus: c.name, Have: meta.Model, Want: c.opts.Embedder.Model(), HaveDims: meta.Dims, Searching: true}
}

// searchMeaning is a hybrid or dense search (or BM25, for an automatic
// mode on a corpus without vectors).
func (c *Corpus) searchMeaning(ctx context.Context, h *handle, query string, k int) ([]sources.Document, error) {
	mode := c.opts.Retrieval
	ix, err := h.vec.open(c.path)
	if errors.Is(err, vector.ErrNone) {
		docs, werr := c.searchWords(ctx, h, query, k)
		if mode == "" || werr != nil {
			return docs, werr
		}
		return docs, &sources.DegradedError{Source: c.Name(), Reason: fmt.Sprintf("corpus %s has no vectors, so it was searched by words only; embed it with `prefrag index --corpus %s --embed-model MODEL PATH…`", c.name, c.name)}
	}
	if err != nil {
		err = &VectorsDamagedError{Name: c.name, Err: err}
		docs, werr := c.searchWords(ctx, h, query, k)
		if mode == sources.RetrievalDense || werr != nil {
			return nil, err
		}
		return docs, &sources.DegradedError{Source: c.Name(), Reason: "searched by words only: " + err.Error()}
	}
	if mode == "" {
		mode = sources.RetrievalHybrid
	}
	if err := c.CheckEmbedModel(); err != nil {
		return nil, err
	}
	depth := max(k, c.opts.Depth, TitleCandidates)
	// The BM25 leg runs while the query is embedded and the vectors
	// searched (the embedding is a call to the server).
	type leg struct {
		docs []sources.Document
		err  error
	}
	var words chan leg
	if mode == sources.RetrievalHybrid {
		words = make(chan leg, 1)
		go func() {
			docs, err := c.searchWords(ctx, h, query, depth)
			words <- leg{docs, err}
		}()
	}
	dense, err := c.vectorLeg(ctx, h, ix, query, depth)
	if mode == sources.RetrievalDense {
		if err != nil {
			return nil, err
		}
		if len(dense) > k {
			dense = dense[:k]
		}
		return sources.Ranked(dense, true), nil
	}
	bm := <-words
	if bm.err != nil {
		return nil, bm.err
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		if len(bm.docs) > k {
			bm.docs = bm.docs[:k]
		}
		return bm.docs, &sources.DegradedError{Source: c.Name(), Reason: "searched by words only: " + err.Error()}
	}
	w := c.opts.Weights
	if w == (sources.Weights{}) {
		w = sources.DefaultWeights
	}
	return sources.Fuse(bm.docs, dense, k, w), nil
}

// vectorLeg embeds the query and returns the n passages nearest to it.
func (c *Corpus) vectorLeg(ctx context.Context, h *handle, ix *vector.Index, query string, n int) ([]sources.Document, error) {
	if c.opts.Embedder == nil {
		return nil, fmt.Errorf("no embedding model is set to embed the query (corpus %s was embedded with %s): pass --embed-model", c.name, ix.Meta().Model)
	}
	vecs, err := c.opts.Embedder.Embed(ctx, []string{query}, nil)
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("the embedding server answered %d vectors for one query", len(vecs))
	}
	if len(vecs[0]) != ix.Meta().Dims {
		return nil, &EmbedModelError{Corpus: c.name, Have: ix.Meta().Model, Want: c.opts.Embedder.Model(), HaveDims: ix.Meta().Dims, WantDims: len(vecs[0]), Searching: true}
	}
	hits, err := ix.Search(vecs[0], n, c.opts.Rerank)
	if err != nil {
		return nil, &VectorsDamagedError{Name: c.name, Err: err}
	}
	ids := make([]string, len(hits))
	for i, hit := range hits {
		ids[i] = hit.ID
	}
	found, err := storedByIDs(h, ids)
	if err != nil {
		return nil, err
	}
	docs := make([]sources.Document, 0, len(hits))
	for _, hit := range hits {
		d, ok := found[hit.ID]
		if !ok {
			continue // removed since it was embedded
		}
		d.Score, d.Source = float64(hit.Score), c.Name()
		docs = append(docs, d)
	}
	return docs, nil
}

// storedByIDs loads the live stored passages of ids, by id: their
// numbers in each segment from the id dictionary, then their records read
// as a search reads them (stored.go), not through the index's memory map.
func storedByIDs(h *handle, ids []string) (map[string]sources.Document, error) {
	snap, err := h.snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	out := make(map[string]sources.Document, len(ids))
	for _, s := range snap.Segments() {
		nums, err := s.DocNumbers(ids)
		if err != nil {
			return nil, err
		}
		if del := s.Deleted(); del != nil {
			nums.AndNot(del)
		}
		it := nums.Iterator()
		for it.HasNext() {
			d, err := h.stored.passage(s, uint64(it.Next()))
			if err != nil {
				return nil, err
			}
			out[d.ID] = d
		}
	}
	return out, nil
}
