package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

func TestEmbed(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.OpenAI(), fakellm.Models("Qwen/Qwen2.5-7B", "BAAI/bge-small-en-v1.5"), fakellm.EmbedModels("BAAI/bge-small-en-v1.5"))
	tests := []struct {
		name    string
		model   string
		wantErr error
		wantMsg []string
	}{
		{name: "embedding model", model: "BAAI/bge-small-en-v1.5"},
		{name: "chat model", model: "Qwen/Qwen2.5-7B", wantErr: llm.ErrCannotEmbed, wantMsg: []string{"does not support Embeddings API", "--task embed", "--embed-model"}},
		{name: "model not served", model: "nomic", wantErr: llm.ErrModelNotFound, wantMsg: []string{"nomic"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(srv.URL()+"/v1", tc.model, Auth{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Embed(context.Background(), []string{"car repair", "mend an automobile"})
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
			if len(res.Vectors) != 2 || res.Model != tc.model || res.PromptTokens == 0 {
				t.Fatalf("%d vectors, model %q, %d tokens", len(res.Vectors), res.Model, res.PromptTokens)
			}
		})
	}
}
