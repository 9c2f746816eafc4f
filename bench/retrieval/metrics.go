package retrieval

import (
	"math"
	"slices"
	"time"
)

// NDCG is nDCG@k with the judgement grades as linear gains (trec_eval's
// convention): DCG = Σ_{i<k} grade(ranked[i]) / log2(i+2), divided by the DCG
// of the best possible ranking of the judged documents. Grades <= 0 count as
// not relevant. Pass Binary(rel) for binary relevance. It is 0 when no
// document is relevant.
func NDCG(ranked []string, rel map[string]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked {
		if i >= k {
			break
		}
		if g := rel[id]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	var gains []int
	for _, g := range rel {
		if g > 0 {
			gains = append(gains, g)
		}
	}
	slices.Sort(gains)
	slices.Reverse(gains)
	ideal := 0.0
	for i, g := range gains {
		if i >= k {
			break
		}
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// Recall is the share of the relevant documents (grade > 0) found in the
// first k of ranked. It is 0 when no document is relevant.
func Recall(ranked []string, rel map[string]int, k int) float64 {
	total := countRelevant(rel)
	if total == 0 {
		return 0
	}
	found := 0
	for i, id := range ranked {
		if i >= k {
			break
		}
		if rel[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(total)
}

// Binary maps every grade > 0 to 1 and drops the rest.
func Binary(rel map[string]int) map[string]int {
	out := make(map[string]int, len(rel))
	for id, g := range rel {
		if g > 0 {
			out[id] = 1
		}
	}
	return out
}

func countRelevant(rel map[string]int) int {
	n := 0
	for _, g := range rel {
		if g > 0 {
			n++
		}
	}
	return n
}

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of samples:
// the smallest sample with at least p% of the samples at or below it. It is 0
// for no samples.
func Percentile(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// mean is the arithmetic mean; 0 for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
