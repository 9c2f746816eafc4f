package elastic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/prefrag/prefrag/sources"
)

// Search by meaning on a remote index: the query is embedded by prefrag
// (the Embedder: the user's own server, with the model the index's vectors
// were made with) and sent as a k-nearest-neighbour search on the index's
// vector field, Elasticsearch 8's top-level "knn" on a dense_vector field,
// OpenSearch's "knn" query on a knn_vector field (which the field's mapping
// says). Hybrid runs the BM25 search too and fuses both rankings in
// prefrag by reciprocal rank fusion, as for a local corpus (no license or
// server-side ranker needed). An index without the vector field is
// searched by BM25 with a note.

// Embedder embeds queries.
type Embedder interface {
	Embed(ctx context.Context, texts []string, done func(int)) ([][]float32, error)
	Model() string
}

// Vector field kinds.
const (
	denseVector = "dense_vector" // Elasticsearch
	knnVector   = "knn_vector"   // OpenSearch
)

// vectorField is what the index's mapping says of the vector field, read
// once.
type vectorField struct {
	mu   sync.Mutex
	done bool
	kind string
	dims int
	// missing says why the index cannot be searched by meaning.
	missing string
}

// depth is how many hits each leg ranks before the fusion.
func depth(k int) int { return max(k, 50) }

func (c *Corpus) searchMeaning(ctx context.Context, query string, k int) ([]sources.Document, error) {
	kind, dims, missing, err := c.vectorKind(ctx)
	if err != nil {
		return nil, err
	}
	if missing == "" && c.cfg.Embedder == nil {
		missing = "no embedding model is set to embed the query: pass --embed-model with the model that made the index's vectors"
	}
	if missing != "" {
		docs, err := c.searchBody(ctx, c.query(query, k), k)
		if err != nil || c.cfg.Retrieval == "" {
			return docs, err
		}
		return docs, &sources.DegradedError{Source: c.Name(), Reason: "searched by words only: " + missing}
	}
	vecs, err := c.cfg.Embedder.Embed(ctx, []string{query}, nil)
	if err == nil && (len(vecs) != 1 || dims > 0 && len(vecs[0]) != dims) {
		got := 0
		if len(vecs) == 1 {
			got = len(vecs[0])
		}
		err = fmt.Errorf("%s gives vectors of %d dimensions, the index's field %s has %d: pass --embed-model with the model that made them", c.cfg.Embedder.Model(), got, c.cfg.VectorField, dims)
	}
	var dense []sources.Document
	n := depth(k)
	if err == nil {
		dense, err = c.searchBody(ctx, c.knnQuery(kind, vecs[0], n), n)
	}
	if err != nil && !(errors.Is(err, sources.ErrTruncated) && len(dense) > 0) {
		if ctx.Err() != nil || c.cfg.Retrieval == sources.RetrievalDense {
			return nil, err
		}
		docs, werr := c.searchBody(ctx, c.query(query, k), k)
		if werr != nil {
			return docs, werr
		}
		return docs, &sources.DegradedError{Source: c.Name(), Reason: "searched by words only: " + err.Error()}
	}
	if c.cfg.Retrieval == sources.RetrievalDense {
		if len(dense) > k {
			dense = dense[:k]
		}
		return sources.Ranked(dense, true), nil
	}
	words, err := c.searchBody(ctx, c.query(query, n), n)
	if err != nil && !errors.Is(err, sources.ErrTruncated) {
		return nil, err
	}
	w := c.cfg.Weights
	if w == (sources.Weights{}) {
		w = sources.DefaultWeights
	}
	return sources.Fuse(words, dense, k, w), err
}

// knnQuery builds the k-nearest-neighbour _search body of the field's
// kind.
func (c *Corpus) knnQuery(kind string, v []float32, k int) []byte {
	req := map[string]any{"size": k, "_source": c.sourceFields()}
	if kind == knnVector {
		req["query"] = map[string]any{"knn": map[string]any{c.cfg.VectorField: map[string]any{"vector": v, "k": k}}}
	} else {
		req["knn"] = map[string]any{"field": c.cfg.VectorField, "query_vector": v, "k": k, "num_candidates": max(100, 2*k)}
	}
	body, _ := json.Marshal(req)
	return body
}

// vectorKind reads the vector field's type and dimensions from the
// index's mapping, once; missing says why there is none.
func (c *Corpus) vectorKind(ctx context.Context) (kind string, dims int, missing string, err error) {
	v := &c.vec
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done {
		return v.kind, v.dims, v.missing, nil
	}
	if c.cfg.VectorField == "" {
		v.done, v.missing = true, fmt.Sprintf("corpus %s has no vector field registered (corpora add --vector-field F)", c.cfg.Corpus)
		return "", 0, v.missing, nil
	}
	body, status, err := c.do(ctx, http.MethodGet, "/"+url.PathEscape(c.cfg.Index)+"/_mapping", nil)
	if err != nil {
		return "", 0, "", err
	}
	if status != http.StatusOK {
		return "", 0, "", c.statusError(status, body)
	}
	v.kind, v.dims = mappedVector(body, c.cfg.VectorField)
	if v.kind == "" {
		v.missing = fmt.Sprintf("index %s has no dense_vector or knn_vector field %s", c.cfg.Index, c.cfg.VectorField)
	}
	v.done = true
	return v.kind, v.dims, v.missing, nil
}

// mappedVector finds a top-level field's vector type and dimensions in a
// _mapping answer ({INDEX: {"mappings": {"properties": {F: {…}}}}}, for
// each index an alias names).
func mappedVector(body []byte, field string) (kind string, dims int) {
	var m map[string]struct {
		Mappings struct {
			Properties map[string]struct {
				Type      string `json:"type"`
				Dims      int    `json:"dims"`
				Dimension int    `json:"dimension"`
			} `json:"properties"`
		} `json:"mappings"`
	}
	if json.Unmarshal(body, &m) != nil {
		return "", 0
	}
	for _, idx := range m {
		p, ok := idx.Mappings.Properties[field]
		if !ok {
			continue
		}
		switch p.Type {
		case denseVector:
			return denseVector, p.Dims
		case knnVector:
			return knnVector, p.Dimension
		}
	}
	return "", 0
}

// sourceFields are the _source fields a search reads.
func (c *Corpus) sourceFields() []string {
	var fields []string
	for _, f := range []string{c.cfg.Fields.Title, c.cfg.Fields.Text, c.cfg.Fields.URL, c.cfg.Fields.ID} {
		if f != "" {
			fields = append(fields, f)
		}
	}
	return fields
}
