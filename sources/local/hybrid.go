package local

import (
	"context"
	"errors"
	"fmt"
	"sync"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local/vector"
)

// Search by meaning: the vector leg ranks passages by the cosine of their
// vectors with the query's (embedded by Options.Embedder with the model
// that embedded the corpus); dense returns that ranking, hybrid fuses it
// with the BM25 ranking by reciprocal rank fusion (sources.Fuse). Each
// passage keeps its rank in each leg.

// vectorHandle is a handle's vector index, opened once.
type vectorHandle struct {
	once sync.Once
	ix   *vector.Index
	err  error
}

func (v *vectorHandle) open(path string) (*vector.Index, error) {
	v.once.Do(func() { v.ix, v.err = vector.Open(vector.Dir(path)) })
	return v.ix, v.err
}

// close releases the index and its vectors.
func (h *handle) close() error {
	if h.vec.ix != nil {
		h.vec.ix.Close()
	}
	return h.idx.Close()
}

// Vectors says which model embedded the corpus, and ErrNone-matching
// vector.ErrNone when it has no vectors.
func (c *Corpus) Vectors() (vector.Status, error) {
	return vector.ReadStatus(vector.Dir(c.path))
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
		return nil, &DamagedError{Name: c.name, Reason: err.Error() + "; `prefrag index --reembed --corpus " + c.name + "` embeds it again"}
	}
	if mode == "" {
		mode = sources.RetrievalHybrid
	}
	if err := c.CheckEmbedModel(); err != nil {
		return nil, err
	}
	depth := max(k, c.opts.Depth, TitleCandidates)
	dense, err := c.vectorLeg(ctx, h, ix, query, depth)
	if err != nil {
		if ctx.Err() != nil || mode == sources.RetrievalDense {
			return nil, err
		}
		docs, werr := c.searchWords(ctx, h, query, k)
		if werr != nil {
			return nil, werr
		}
		return docs, &sources.DegradedError{Source: c.Name(), Reason: "searched by words only: " + err.Error()}
	}
	if mode == sources.RetrievalDense {
		if len(dense) > k {
			dense = dense[:k]
		}
		return sources.Ranked(dense, true), nil
	}
	words, err := c.searchWords(ctx, h, query, depth)
	if err != nil {
		return nil, err
	}
	w := c.opts.Weights
	if w == (sources.Weights{}) {
		w = sources.DefaultWeights
	}
	return sources.Fuse(words, dense, k, w), nil
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
		return nil, &DamagedError{Name: c.name, Reason: err.Error()}
	}
	docs := make([]sources.Document, 0, len(hits))
	for _, hit := range hits {
		d, ok, err := storedByID(h, hit.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // removed since it was embedded
		}
		d.Score, d.Source = float64(hit.Score), c.Name()
		docs = append(docs, d)
	}
	return docs, nil
}

// storedByID loads the stored fields of the passage id.
func storedByID(h *handle, id string) (sources.Document, bool, error) {
	doc, err := h.idx.Document(id)
	if err != nil || doc == nil {
		return sources.Document{}, false, err
	}
	d := sources.Document{ID: id}
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
	return d, true, nil
}
