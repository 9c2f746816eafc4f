package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Embeddings: every backend's client also turns texts into vectors, with
// the server's own embedding endpoint (Ollama POST /api/embed with a batch
// "input"; llama-server and OpenAI-compatible servers POST /v1/embeddings).
// The embedding model is named apart from the chat model (--embed-model) and
// may live on another server (--embed-url); NewEmbedder builds its client.

// Embedding is what one embedding call returned.
type Embedding struct {
	// Vectors are in the order of the texts, each of the model's
	// dimensions, as the server sent them.
	Vectors [][]float32
	// Model is the model that answered (the server's name for it when it
	// says; else the one asked for).
	Model string
	// PromptTokens is the server's count of the tokens read, 0 when it did
	// not say.
	PromptTokens int
}

// Embedder is a backend client that embeds.
type Embedder interface {
	Embed(ctx context.Context, texts []string) (Embedding, error)
	Model() string
}

// ErrCannotEmbed is matched when the server or the model cannot embed: the
// server was started without embeddings, or the model is a chat model.
var ErrCannotEmbed = errors.New("the server cannot embed with this model")

// CannotEmbedError says why there are no embeddings and what to run.
type CannotEmbedError struct {
	Backend string
	Addr    string
	Model   string
	// Said is what the server answered, in its words.
	Said string
	// Status is the HTTP status of the answer.
	Status int
	// Reason is a row of the backend table's embedding reasons: "model"
	// (a model that is not an embedding model), "server" (a server started
	// without embeddings), "pooling" (llama-server with pooling none),
	// "batch" (a passage longer than llama-server's physical batch).
	Reason string
}

func (e *CannotEmbedError) Error() string {
	what := "cannot embed"
	if e.Model != "" {
		what = "cannot embed with " + e.Model
	}
	said := ""
	if e.Said != "" {
		said = fmt.Sprintf(" (it answered %q)", e.Said)
	}
	return fmt.Sprintf("the %s server at %s %s%s — %s", e.Backend, e.Addr, what, said, BackendOf(e.Backend).EmbedHint(e))
}

func (e *CannotEmbedError) Is(target error) bool { return target == ErrCannotEmbed }

// NewEmbedder builds the embedding client of backend name for the server
// at url and model (may be "" where the server names its model). It does
// not contact the server.
func NewEmbedder(name, url, model string, opts ...Option) (Embedder, error) {
	c, err := NewClient(name, url, model, opts...)
	if err != nil {
		return nil, err
	}
	e, ok := c.(Embedder)
	if !ok {
		return nil, fmt.Errorf("the %s backend of this program cannot embed", name)
	}
	return e, nil
}

// Normalize scales v to unit length in place and reports whether it could
// (a zero vector, NaN or Inf cannot).
func Normalize(v []float32) bool {
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
		sum += f * f
	}
	if sum == 0 {
		return false
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return true
}

// CheckVectors checks an embedding answer: one vector per text, all of one
// length, finite. It returns a *ServerError naming the problem.
func CheckVectors(backend string, texts int, vecs [][]float32) error {
	if len(vecs) != texts {
		return &ServerError{Backend: backend, Status: 200, Message: fmt.Sprintf("asked to embed %d texts, it answered %d vectors", texts, len(vecs))}
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return &ServerError{Backend: backend, Status: 200, Message: fmt.Sprintf("embedding %d of %d is empty", i+1, texts)}
		}
		if len(v) != len(vecs[0]) {
			return &ServerError{Backend: backend, Status: 200, Message: fmt.Sprintf("embeddings of different lengths in one answer (%d and %d)", len(vecs[0]), len(v))}
		}
		for _, x := range v {
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
				return &ServerError{Backend: backend, Status: 200, Message: fmt.Sprintf("embedding %d of %d holds NaN or Inf values", i+1, texts)}
			}
		}
	}
	return nil
}
