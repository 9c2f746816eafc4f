package distinct

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// benchSet is a corpus of 5,000 passages of 120 words drawn from the
// common words, with a code and a name in every tenth.
func benchSet(b *testing.B) *Set {
	b.Helper()
	var vocab []string
	common, _ := commonWords()
	for w := range common {
		vocab = append(vocab, w)
	}
	sort.Strings(vocab)
	rng := rand.New(rand.NewPCG(1, 2))
	bd := NewBuilder()
	for i := 0; i < 5000; i++ {
		words := make([]string, 120)
		for j := range words {
			words[j] = vocab[rng.IntN(len(vocab))]
		}
		if i%10 == 0 {
			words[40] = fmt.Sprintf("AC-%05d", i)
			words[80] = "Zorbanek"
		}
		bd.Add(fmt.Sprintf("passage %d", i), strings.Join(words, " ")+".")
	}
	return bd.Set()
}

// BenchmarkFind checks a 14-word query that carries nothing (every token
// looked up, every run hashed and searched): the cost the engine adds to
// each query that would leave the machine.
func BenchmarkFind(b *testing.B) {
	s := benchSet(b)
	q := "which airline flew the most passengers between the two largest cities of the region last year"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := s.Find(q); ok {
			b.Fatal("held")
		}
	}
}

// BenchmarkBuild builds the Set of 5,000 passages of 120 words.
func BenchmarkBuild(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchSet(b)
	}
}
