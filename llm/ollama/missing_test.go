package ollama

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

// TestMissingModelListsServed: a model the Ollama server does not have is
// named with the models it has (GET /api/tags), from Check and from a
// generation alike.
func TestMissingModelListsServed(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.Models("qwen3:8b", "llama3.2"))
	c, err := New(srv.URL(), "mistral")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, genErr := c.Generate(ctx, llm.Request{Prompt: "p"}, nil)
	for _, err := range []error{c.Check(ctx), genErr} {
		var me *llm.ModelNotFoundError
		if !errors.As(err, &me) || !me.Listed {
			t.Fatalf("err = %v, want a listed *llm.ModelNotFoundError", err)
		}
		for _, want := range []string{"model mistral not found", `"qwen3:8b"`, `"llama3.2`, "--model", "ollama pull mistral"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q lacks %q", err, want)
			}
		}
	}
}
