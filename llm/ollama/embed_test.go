package ollama

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

// cosine of two unit vectors.
func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbed(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.Models("llama3.1"), fakellm.EmbedModels("nomic-embed-text"), fakellm.EmbedDims(48))
	tests := []struct {
		name    string
		model   string
		texts   []string
		wantErr error
		wantMsg []string
	}{
		{name: "batch", model: "nomic-embed-text", texts: []string{"car repair", "mend an automobile", "bread recipe"}},
		{name: "chat model", model: "llama3.1", texts: []string{"x"}, wantErr: llm.ErrCannotEmbed,
			wantMsg: []string{"cannot embed with llama3.1", "This server does not support embeddings", "ollama pull nomic-embed-text", "--embed-model nomic-embed-text"}},
		{name: "missing model", model: "bge-m3", texts: []string{"x"}, wantErr: llm.ErrModelNotFound, wantMsg: []string{"ollama pull bge-m3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(srv.URL(), tc.model)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Embed(context.Background(), tc.texts)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				for _, m := range tc.wantMsg {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("%q does not say %q", err, m)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Vectors) != 3 || len(res.Vectors[0]) != 48 || res.PromptTokens == 0 || res.Model != "nomic-embed-text" {
				t.Fatalf("answer %d vectors of %d, %d tokens, model %q", len(res.Vectors), len(res.Vectors[0]), res.PromptTokens, res.Model)
			}
			if near, far := cosine(res.Vectors[0], res.Vectors[1]), cosine(res.Vectors[0], res.Vectors[2]); near < 0.9 || far > 0.5 {
				t.Errorf("synonyms at %.2f, unrelated at %.2f", near, far)
			}
		})
	}
	// One call for the whole batch, its texts in "input".
	var embeds int
	for _, r := range srv.Requests() {
		if r.Endpoint == "/api/embed" {
			embeds++
			if in, _ := r.BodyMap()["input"].([]any); embeds == 1 && len(in) != 3 {
				t.Errorf("first /api/embed input %v, want the 3 texts", r.BodyMap()["input"])
			}
		}
	}
	if embeds != 3 {
		t.Errorf("%d calls to /api/embed, want 3", embeds)
	}
}

func TestEmbedPoolRetriesOllama(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.EmbedModels("nomic-embed-text"), fakellm.EmbedErrors(2))
	c, err := New(srv.URL(), "nomic-embed-text")
	if err != nil {
		t.Fatal(err)
	}
	p := &llm.EmbedPool{E: c, Batch: 2, Parallel: 1, Backoff: 1}
	texts := []string{"a car", "a house", "a ship", "a doctor", "a film"}
	vecs, err := p.Embed(context.Background(), texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors", len(vecs))
	}
	calls, n := srv.EmbedCalls()
	if got := p.Counts(); calls != 3 || n != 5 || got.Calls != 5 || got.Texts != 5 || got.Tokens == 0 {
		t.Errorf("server answered %d calls (%d texts), pool counted %+v; want 3 answered after 2 failures", calls, n, got)
	}
}
