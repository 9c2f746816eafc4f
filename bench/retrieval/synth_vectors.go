package retrieval

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync"
)

// SynthEmbedder stands in for an embedding model in the scale benchmark:
// it gives every text a vector of Dims dimensions, the same for the same
// text, drawn the way real embeddings are spread: in topics and subtopics
// (one of 256 topic centres, plus one of 64 subtopic offsets of that
// topic, plus the text's own noise), all shifted far from the origin along
// one common direction, with dimensions of unequal spread (real embedding
// spaces are anisotropic: their mean is far from zero and a few directions
// carry most of the variance). Per dimension, before the vector is scaled
// to unit length, the common direction has a spread of 1.5, a topic 1, a
// subtopic 0.7 and the noise 0.5, each times the dimension's own spread
// (log-normal, σ 0.6): two texts of one subtopic have a cosine of about
// 0.94, of one topic 0.81, of two topics 0.56. It takes no model and no
// server: the benchmark measures the index, not the model.
type SynthEmbedder struct {
	Dims    int
	common  []float64
	scale   []float64
	centres [][]float64
	seed    uint64
	// subs are the subtopic offsets drawn so far (drawn when first used,
	// so that a process embedding a few questions holds few).
	mu   sync.Mutex
	subs map[int][]float32
}

// Topics and subtopics per topic of the synthetic embeddings.
const (
	synthClusters  = 256
	synthSubtopics = 64
)

// NewSynthEmbedder draws the common direction, the spread of each
// dimension and the centres from seed.
func NewSynthEmbedder(dims int, seed uint64) *SynthEmbedder {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	e := &SynthEmbedder{Dims: dims, common: make([]float64, dims), scale: make([]float64, dims)}
	for i := range dims {
		e.common[i] = rng.NormFloat64()
		// A log-normal spread: some dimensions vary several times more
		// than others.
		e.scale[i] = math.Exp(0.6 * rng.NormFloat64())
	}
	e.centres = make([][]float64, synthClusters)
	for c := range e.centres {
		v := make([]float64, dims)
		for i := range v {
			v[i] = rng.NormFloat64() * e.scale[i]
		}
		e.centres[c] = v
	}
	e.seed, e.subs = seed, map[int][]float32{}
	return e
}

// subtopic is the offset of subtopic i.
func (e *SynthEmbedder) subtopic(i int) []float32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.subs[i]; ok {
		return v
	}
	rng := rand.New(rand.NewPCG(e.seed, uint64(i)+1))
	v := make([]float32, e.Dims)
	for j := range v {
		v[j] = float32(0.7 * rng.NormFloat64() * e.scale[j])
	}
	e.subs[i] = v
	return v
}

// Vector is the unit vector of text.
func (e *SynthEmbedder) Vector(text string) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	sum := h.Sum64()
	rng := rand.New(rand.NewPCG(sum, sum>>17|1))
	topic := rng.IntN(synthClusters)
	c, sub := e.centres[topic], e.subtopic(topic*synthSubtopics+rng.IntN(synthSubtopics))
	v := make([]float64, e.Dims)
	var norm float64
	for i := range v {
		x := 1.5*e.common[i] + c[i] + float64(sub[i]) + 0.5*rng.NormFloat64()*e.scale[i]
		v[i] = x
		norm += x * x
	}
	out := make([]float32, e.Dims)
	inv := 1 / math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}

// Embed gives each text its vector.
func (e *SynthEmbedder) Embed(ctx context.Context, texts []string, done func(int)) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.Vector(t)
	}
	if done != nil {
		done(len(texts))
	}
	return out, nil
}

// Model names the synthetic model.
func (e *SynthEmbedder) Model() string { return fmt.Sprintf("synthetic-%d", e.Dims) }

// Server names the stand-in server.
func (e *SynthEmbedder) Server() string { return "synthetic" }
