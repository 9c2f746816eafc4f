// Package bm25 scores documents with textbook Okapi BM25 (Robertson and
// Zaragoza's form):
//
//	score(d, q) = Σ_t w_t · idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))
//	idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))
//
// where w_t is the query weight of term t (how often it occurs in the query,
// times an optional field boost), |d| the document length in tokens and avgdl
// the true mean length over the collection. It knows nothing of the index:
// the caller (sources/local's search) feeds it postings.
package bm25

import "math"

// Params are the BM25 free parameters.
type Params struct {
	K1 float64
	B  float64
}

// Default is k1 = 1.2, b = 0.75.
var Default = Params{K1: 1.2, B: 0.75}

// Collection holds the statistics scores depend on.
type Collection struct {
	// N is the number of documents.
	N uint64
	// TotalLength is the sum of all document lengths, in tokens.
	TotalLength uint64
}

// AvgLength is the mean document length; 1 for an empty collection.
func (c Collection) AvgLength() float64 {
	if c.N == 0 || c.TotalLength == 0 {
		return 1
	}
	return float64(c.TotalLength) / float64(c.N)
}

// IDF is ln(1 + (N − df + 0.5)/(df + 0.5)); always positive.
func IDF(n, df uint64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// TermScore is one term's contribution to one document, before its query
// weight and idf: tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)).
func (p Params) TermScore(tf, dl uint64, avgdl float64) float64 {
	t := float64(tf)
	return t * (p.K1 + 1) / (t + p.K1*(1-p.B+p.B*float64(dl)/avgdl))
}

// UpperBound bounds one posting's contribution: TermScore never reaches
// k1+1.
func (p Params) UpperBound(weight float64) float64 {
	return weight * (p.K1 + 1)
}
