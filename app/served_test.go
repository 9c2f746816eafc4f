package app

import (
	"context"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
)

// servedModel is a backend client that reports what a server said of its
// context.
type servedModel struct {
	numCtx, cap int
}

func (m servedModel) Model() string   { return "m" }
func (m servedModel) NumCtx() int     { return m.numCtx }
func (m servedModel) ContextCap() int { return m.cap }

func (servedModel) Generate(context.Context, llm.Request, llm.TokenFunc) (llm.Response, error) {
	return llm.Response{}, nil
}
func (servedModel) Check(context.Context) error            { return nil }
func (servedModel) Digest(context.Context) (string, error) { return "", nil }

// The context a request really gets: the server's own (llama.cpp slot,
// vLLM max_model_len, Ollama's /v1 runner), or Ollama's model context
// length when it is below the num_ctx sent.
func TestResolveServedContext(t *testing.T) {
	for _, tt := range []struct {
		name        string
		numCtx, cap int
		want        int
	}{
		{"server's context", 4096, 0, 4096},
		{"model cap below num_ctx", 0, 2048, 2048},
		{"model cap above num_ctx", 0, 32768, 0},
		{"nothing known", 0, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := engine.DefaultRunConfig()
			m := servedModel{numCtx: tt.numCtx, cap: tt.cap}
			ResolveServed(&s, m, m)
			if s.ServerCtx != tt.want {
				t.Errorf("ServerCtx = %d, want %d", s.ServerCtx, tt.want)
			}
		})
	}
}
