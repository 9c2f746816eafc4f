package ollama

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

// Issue 21: Ollama cuts a prompt longer than num_ctx and answers normally;
// the reply's prompt_eval_count shows it, and the client says so.
func TestPromptCutDetected(t *testing.T) {
	prompt := "Answer in the format below. " + strings.Repeat("some document text here ", 800)
	tests := []struct {
		name   string
		numCtx int
		cut    bool
	}{
		{"over num_ctx: cut and said", 1024, true},
		{"within num_ctx: whole", 16384, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, answer("Final Answer: fine"), fakellm.TruncateLikeOllama())
			c := newClient(t, srv.URL())
			resp, err := c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeStep, Prompt: prompt, Options: llm.Options{NumCtx: tt.numCtx}}, nil)
			var pc *llm.PromptCutError
			if got := errors.As(err, &pc); got != tt.cut {
				t.Fatalf("err = %v (%T), want a cut reported: %v", err, err, tt.cut)
			}
			if !tt.cut {
				return
			}
			if pc.Kept != tt.numCtx || pc.Sent <= pc.Kept || !errors.Is(err, llm.ErrPromptCut) ||
				!strings.Contains(err.Error(), "raise --num-ctx (this request ran with 1024 tokens)") {
				t.Errorf("kept %d of %d: %v", pc.Kept, pc.Sent, err)
			}
			if resp.PromptTokens != tt.numCtx {
				t.Errorf("PromptTokens %d", resp.PromptTokens)
			}
		})
	}
}

// The model's own context length (/api/show) caps the context a request
// runs with: a cut there is detected even when num_ctx is larger.
func TestContextCapFromShow(t *testing.T) {
	srv := fakellm.New(t, answer("ok"), fakellm.ContextLength(2048))
	c := newClient(t, srv.URL())
	if err := c.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.ContextCap(); got != 2048 {
		t.Fatalf("ContextCap = %d, want 2048", got)
	}
	if got := c.requestContext(llm.Request{Options: llm.Options{NumCtx: 16384}}); got != 2048 {
		t.Errorf("requestContext = %d", got)
	}
}
