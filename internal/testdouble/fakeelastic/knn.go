package fakeelastic

import (
	"encoding/json"
	"errors"
	"sort"
)

// k-nearest-neighbour search, as the references document it:
//
//   - GET /<index>/_mapping answers the index's properties: title and text
//     of type text, and with Options.VectorField that field as a
//     dense_vector {dims, index: true, similarity: cosine} (Elasticsearch
//     8) or a knn_vector {dimension} (OpenSearch 2).
//   - Elasticsearch 8: a top-level "knn": {"field", "query_vector", "k",
//     "num_candidates"}; hits scored (1 + cosine) / 2. Elasticsearch 7
//     answers it 400 parsing_exception ("Unknown key for a START_OBJECT in
//     [knn]."), as 7.x did.
//   - OpenSearch 2: "query": {"knn": {FIELD: {"vector", "k"}}}; hits scored
//     1 / (2 − cosine) (cosinesimil).
//
// Every document's vector is Options.Vector(title + "\n\n" + text), and the
// ranking is exact.

func (s *Server) mapping() map[string]any {
	props := map[string]any{
		s.opts.TitleField: map[string]any{"type": "text"},
		s.opts.TextField:  map[string]any{"type": "text"},
		s.opts.URLField:   map[string]any{"type": "keyword"},
	}
	if s.opts.VectorField != "" && s.opts.Vector != nil {
		dims := len(s.opts.Vector("x"))
		if s.opts.Flavor == OpenSearch2 {
			props[s.opts.VectorField] = map[string]any{"type": "knn_vector", "dimension": dims}
		} else {
			props[s.opts.VectorField] = map[string]any{"type": "dense_vector", "dims": dims, "index": true, "similarity": "cosine"}
		}
	}
	return map[string]any{s.opts.Index: map[string]any{"mappings": map[string]any{"properties": props}}}
}

// knn ranks the documents for a knn request; isKnn is false for any other
// search.
func (s *Server) knn(req searchRequest) (scored []scoredDoc, isKnn bool, err error) {
	var field string
	var vec []float32
	var k int
	if len(req.Knn) > 0 {
		if s.opts.Flavor == Elasticsearch7 || s.opts.Flavor == OpenSearch2 {
			return nil, true, errors.New("Unknown key for a START_OBJECT in [knn].")
		}
		var q struct {
			Field       string    `json:"field"`
			QueryVector []float32 `json:"query_vector"`
			K           int       `json:"k"`
		}
		if err := json.Unmarshal(req.Knn, &q); err != nil {
			return nil, true, err
		}
		field, vec, k = q.Field, q.QueryVector, q.K
	} else {
		var q struct {
			Knn map[string]struct {
				Vector []float32 `json:"vector"`
				K      int       `json:"k"`
			} `json:"knn"`
		}
		if len(req.Query) == 0 || json.Unmarshal(req.Query, &q) != nil || len(q.Knn) == 0 {
			return nil, false, nil
		}
		if s.opts.Flavor != OpenSearch2 {
			return nil, true, errors.New("unknown query [knn]")
		}
		for f, v := range q.Knn {
			field, vec, k = f, v.Vector, v.K
		}
	}
	if field != s.opts.VectorField || s.opts.Vector == nil {
		return nil, true, errors.New("field [" + field + "] is not a vector field")
	}
	for _, d := range s.opts.Docs {
		dv := s.opts.Vector(d.Title + "\n\n" + d.Text)
		if len(dv) != len(vec) {
			return nil, true, errors.New("the query vector has a different number of dimensions than the field")
		}
		var cos float64
		for i := range dv {
			cos += float64(dv[i]) * float64(vec[i])
		}
		score := (1 + cos) / 2
		if s.opts.Flavor == OpenSearch2 {
			score = 1 / (2 - cos)
		}
		scored = append(scored, scoredDoc{doc: d, score: score})
	}
	sort.SliceStable(scored, func(i, j int) bool { return scored[i].score > scored[j].score })
	if k > 0 && len(scored) > k {
		scored = scored[:k]
	}
	return scored, true, nil
}
