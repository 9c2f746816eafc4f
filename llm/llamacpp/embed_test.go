package llamacpp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

func TestEmbed(t *testing.T) {
	long := strings.Repeat("word ", 400)
	tests := []struct {
		name    string
		opts    []fakellm.Option
		texts   []string
		wantMsg []string // empty: success
	}{
		{name: "embedding server", opts: []fakellm.Option{fakellm.Models("bge-small-embed")}, texts: []string{"car repair", "mend an automobile"}},
		{name: "without --embeddings", opts: []fakellm.Option{fakellm.Models("qwen2.5")}, texts: []string{"x"},
			wantMsg: []string{"does not support embeddings", "started without --embeddings", "llama-server -m EMBEDDING-MODEL.gguf --embeddings", "--embed-url"}},
		{name: "pooling none", opts: []fakellm.Option{fakellm.Models("bge-small-embed"), fakellm.PoolingNone()}, texts: []string{"x"},
			wantMsg: []string{"Pooling type 'none'", "has no pooling", "--pooling mean"}},
		{name: "physical batch", opts: []fakellm.Option{fakellm.Models("bge-small-embed"), fakellm.EmbedBatchTokens(64)}, texts: []string{long},
			wantMsg: []string{"physical batch", "-b 4096 -ub 4096"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakellm.New(t, nil, tc.opts...)
			c := newClient(t, srv.URL())
			c.model = "" // the server names its model
			res, err := c.Embed(context.Background(), tc.texts)
			if len(tc.wantMsg) > 0 {
				if !errors.Is(err, llm.ErrCannotEmbed) {
					t.Fatalf("err = %v, want ErrCannotEmbed", err)
				}
				if llm.Transient(err) {
					t.Errorf("%v is retried", err)
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
			if len(res.Vectors) != 2 || res.Model != "bge-small-embed" || res.PromptTokens == 0 {
				t.Fatalf("%d vectors, model %q, %d tokens", len(res.Vectors), res.Model, res.PromptTokens)
			}
			if c.Slots() != 2 {
				t.Errorf("slots %d, want the 2 of /props", c.Slots())
			}
			body := srv.Requests()[len(srv.Requests())-1].BodyMap()
			if in, _ := body["input"].([]any); len(in) != 2 || body["encoding_format"] != "float" {
				t.Errorf("request body %v", body)
			}
		})
	}
}
