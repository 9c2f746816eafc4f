package sources

import (
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
)

// Hybrid retrieval: a local or remote corpus with vectors is searched two
// ways, by words (BM25) and by meaning (the vectors of an embedding
// model), and the two rankings are fused by reciprocal rank fusion.

// Retrieval modes (--retrieval).
const (
	RetrievalBM25   = "bm25"
	RetrievalHybrid = "hybrid"
	RetrievalDense  = "dense"
)

// RetrievalModes lists the modes, in the order help shows them.
func RetrievalModes() []string { return []string{RetrievalBM25, RetrievalHybrid, RetrievalDense} }

// Ranks says where a passage stood in each leg of a hybrid or dense
// search: 1 for first, 0 when that leg did not find it.
type Ranks struct {
	BM25   int
	Vector int
}

// RRFK is the constant of reciprocal rank fusion: a passage at rank r of a
// leg scores weight/(RRFK+r).
const RRFK = 60

// Weights weigh the legs in the fusion (1 and 1 by default).
type Weights struct {
	BM25, Vector float64
}

// DefaultWeights gives both legs the same weight.
var DefaultWeights = Weights{BM25: 1, Vector: 1}

// Fuse merges the two rankings (each best first, passages told apart by
// ID) by reciprocal rank fusion and returns the k best, each with its rank
// in each leg and its fused score. Equal scores keep the BM25 leg's order,
// then the vector leg's.
func Fuse(bm25, dense []Document, k int, w Weights) []Document {
	type entry struct {
		d     Document
		score float64
		ranks Ranks
	}
	byID := map[string]*entry{}
	var order []*entry
	add := func(docs []Document, weight float64, set func(*Ranks, int)) {
		for i, d := range docs {
			e := byID[d.ID]
			if e == nil {
				e = &entry{d: d}
				byID[d.ID] = e
				order = append(order, e)
			}
			set(&e.ranks, i+1)
			e.score += weight / float64(RRFK+i+1)
		}
	}
	add(bm25, w.BM25, func(r *Ranks, n int) { r.BM25 = n })
	add(dense, w.Vector, func(r *Ranks, n int) { r.Vector = n })
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	if len(order) > k {
		order = order[:k]
	}
	out := make([]Document, len(order))
	for i, e := range order {
		d := e.d
		d.Score = e.score
		r := e.ranks
		d.Ranks = &r
		out[i] = d
	}
	return out
}

// Ranked gives each document of one leg its rank in that leg (the other
// leg's rank stays 0): what a dense search returns.
func Ranked(docs []Document, vector bool) []Document {
	for i := range docs {
		r := Ranks{BM25: i + 1}
		if vector {
			r = Ranks{Vector: i + 1}
		}
		docs[i].Ranks = &r
	}
	return docs
}

// The JSON of a document carries "bm25_rank" and "vector_rank" (a number,
// or null when that leg did not find it) when it came from a hybrid or
// dense search, and neither otherwise.

type plainDocument Document

type rankedDocument struct {
	plainDocument
	BM25Rank   *int `json:"bm25_rank"`
	VectorRank *int `json:"vector_rank"`
}

func rankPtr(n int) *int {
	if n <= 0 {
		return nil
	}
	return &n
}

// MarshalJSON writes the ranks of a hybrid or dense search's document.
func (d Document) MarshalJSON() ([]byte, error) {
	if d.Ranks == nil {
		return json.Marshal(plainDocument(d))
	}
	return json.Marshal(rankedDocument{plainDocument: plainDocument(d), BM25Rank: rankPtr(d.Ranks.BM25), VectorRank: rankPtr(d.Ranks.Vector)})
}

// UnmarshalJSON reads them back.
func (d *Document) UnmarshalJSON(b []byte) error {
	var r struct {
		plainDocument
		BM25Rank   json.RawMessage `json:"bm25_rank"`
		VectorRank json.RawMessage `json:"vector_rank"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	*d = Document(r.plainDocument)
	d.Ranks = nil
	if r.BM25Rank != nil || r.VectorRank != nil {
		var ranks Ranks
		var n *int
		if json.Unmarshal(r.BM25Rank, &n) == nil && n != nil {
			ranks.BM25 = *n
		}
		n = nil
		if json.Unmarshal(r.VectorRank, &n) == nil && n != nil {
			ranks.Vector = *n
		}
		d.Ranks = &ranks
	}
	return nil
}

// ErrDegraded is matched when a search answered with fewer legs than
// asked: a hybrid search by words only (no vectors, an embedding server
// that did not answer). Its documents are real.
var ErrDegraded = errors.New("searched by fewer legs than asked")

// DegradedError comes with the documents of such a search and says why.
type DegradedError struct {
	Source string
	Reason string
}

func (e *DegradedError) Error() string { return e.Source + ": " + e.Reason }

func (e *DegradedError) Is(target error) bool { return target == ErrDegraded }

// LegNote says which legs of a hybrid or dense search found the document
// and at which rank ("words #3, meaning #1"; "meaning #2"), "" for a
// document of a search by words alone. Every renderer shows it the same.
func (d Document) LegNote() string {
	if d.Ranks == nil {
		return ""
	}
	var parts []string
	if d.Ranks.BM25 > 0 {
		parts = append(parts, "words #"+strconv.Itoa(d.Ranks.BM25))
	}
	if d.Ranks.Vector > 0 {
		parts = append(parts, "meaning #"+strconv.Itoa(d.Ranks.Vector))
	}
	return strings.Join(parts, ", ")
}
