package retrieval

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestNDCG(t *testing.T) {
	tests := []struct {
		name   string
		ranked []string
		rel    map[string]int
		k      int
		want   float64
	}{
		{
			// DCG = 1/log2(2) + 1/log2(4) = 1.5; ideal (3 relevant) =
			// 1 + 1/log2(3) + 1/log2(4) = 2.1309297536.
			name: "binary, two of three relevant found", ranked: []string{"a", "b", "c", "d"},
			rel: map[string]int{"a": 1, "c": 1, "e": 1}, k: 3, want: 0.7039180890,
		},
		{
			// DCG = 1 + 3/log2(3) + 2/log2(4) = 3.8927892607; ideal ranks w(4),
			// y(3), z(2): 4 + 3/log2(3) + 2/log2(4) = 6.8927892607.
			name: "graded, linear gains", ranked: []string{"x", "y", "z"},
			rel: map[string]int{"x": 1, "y": 3, "z": 2, "w": 4}, k: 3, want: 0.5647625531,
		},
		{
			// The -1 judgement gains nothing: DCG = 2/log2(3), ideal = 2.
			name: "negative grade is not relevant", ranked: []string{"a", "b"},
			rel: map[string]int{"a": -1, "b": 2}, k: 10, want: 0.6309297536,
		},
		{
			// Only the first k count: DCG = 3/log2(3) (b at rank 2);
			// ideal = 3 + 2/log2(3).
			name: "cut at k", ranked: []string{"c", "b", "a"},
			rel: map[string]int{"a": 2, "b": 3}, k: 2, want: 0.4441228664,
		},
		{name: "perfect ranking", ranked: []string{"a", "b", "c"}, rel: map[string]int{"a": 2, "b": 1}, k: 10, want: 1},
		{name: "more relevant than k, all top k relevant", ranked: []string{"a"}, rel: map[string]int{"a": 1, "b": 1}, k: 1, want: 1},
		{name: "nothing relevant found", ranked: []string{"x", "y"}, rel: map[string]int{"a": 1}, k: 10, want: 0},
		{name: "no relevant documents", ranked: []string{"x"}, rel: map[string]int{"x": 0}, k: 10, want: 0},
		{name: "empty ranking", ranked: nil, rel: map[string]int{"a": 1}, k: 10, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NDCG(tt.ranked, tt.rel, tt.k); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("NDCG = %.10f, want %.10f", got, tt.want)
			}
		})
	}
}

func TestBinaryNDCGOnGradedJudgements(t *testing.T) {
	rel := map[string]int{"x": 1, "y": 3, "z": 2, "w": 4, "n": -1}
	b := Binary(rel)
	if len(b) != 4 || b["y"] != 1 || b["w"] != 1 || b["n"] != 0 {
		t.Fatalf("Binary = %v", b)
	}
	// x, y, z relevant at ranks 1–3 out of 4 relevant, k = 3: all of the
	// ideal top 3 are relevant too, so binary nDCG is 1.
	if got := NDCG([]string{"x", "y", "z"}, b, 3); got != 1 {
		t.Errorf("binary NDCG = %v, want 1", got)
	}
}

func TestRecall(t *testing.T) {
	ranked := []string{"a", "b", "c", "d"}
	rel := map[string]int{"b": 1, "d": 2, "z": 1, "n": -1}
	tests := []struct {
		k    int
		want float64
	}{{1, 0}, {2, 1.0 / 3}, {4, 2.0 / 3}, {100, 2.0 / 3}}
	for _, tt := range tests {
		if got := Recall(ranked, rel, tt.k); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Recall@%d = %v, want %v", tt.k, got, tt.want)
		}
	}
	if got := Recall(ranked, map[string]int{"a": -1}, 10); got != 0 {
		t.Errorf("Recall with nothing relevant = %v, want 0", got)
	}
}

func TestPercentile(t *testing.T) {
	var samples []time.Duration
	for _, ms := range []int{7, 3, 10, 1, 5, 2, 9, 4, 8, 6} {
		samples = append(samples, time.Duration(ms)*time.Millisecond)
	}
	orig := slices.Clone(samples)
	tests := []struct {
		p    float64
		want time.Duration
	}{{50, 5 * time.Millisecond}, {90, 9 * time.Millisecond}, {99, 10 * time.Millisecond}, {100, 10 * time.Millisecond}, {1, time.Millisecond}}
	for _, tt := range tests {
		if got := Percentile(samples, tt.p); got != tt.want {
			t.Errorf("p%v = %v, want %v", tt.p, got, tt.want)
		}
	}
	if !slices.Equal(samples, orig) {
		t.Error("Percentile reordered its input")
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %v", got)
	}
	if got := Percentile([]time.Duration{42}, 99); got != 42 {
		t.Errorf("p99 of one sample = %v", got)
	}
}
