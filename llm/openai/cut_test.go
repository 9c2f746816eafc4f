package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

// Issue 21: Ollama's /v1 takes no num_ctx and runs its runner's default;
// a prompt over it is cut, usage.prompt_tokens shows it, and the client
// says so with what to change. The context is learnt from the server.
func TestOllamaV1PromptCutDetected(t *testing.T) {
	srv := fakellm.New(t, answer("Final Answer: fine"), fakellm.AsOllama(), fakellm.Models("tinygo"), fakellm.TruncateLikeOllama())
	c, err := New(srv.URL()+"/v1", "tinygo", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.NumCtx(); got != llm.OllamaV1Context {
		t.Errorf("NumCtx on Ollama's /v1 = %d, want the default %d", got, llm.OllamaV1Context)
	}
	// A short prompt is whole.
	if _, err := c.Generate(context.Background(), llm.Request{Prompt: "short", Options: llm.Options{NumPredict: 64}}, nil); err != nil {
		t.Fatal(err)
	}
	prompt := "Answer in the format below. " + strings.Repeat("some document text here ", 1600)
	_, err = c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeStep, Prompt: prompt, Options: llm.Options{NumPredict: 64}}, nil)
	var pc *llm.PromptCutError
	if !errors.As(err, &pc) || pc.Kept != fakellm.OllamaDefaultNumCtx || !strings.Contains(err.Error(), "OLLAMA_CONTEXT_LENGTH") {
		t.Fatalf("err = %v (%T)", err, err)
	}
	// Once a runner is loaded, /api/ps gives its context.
	c2, _ := New(srv.URL()+"/v1", "tinygo", Auth{})
	if err := c2.Check(context.Background()); err != nil || c2.NumCtx() != fakellm.OllamaDefaultNumCtx {
		t.Errorf("after a load: NumCtx %d, %v", c2.NumCtx(), err)
	}
}

// A vLLM server gives max_model_len: no Ollama probing changes it.
func TestVLLMContextNotProbed(t *testing.T) {
	srv := fakellm.New(t, answer("ok"), fakellm.OpenAI(), fakellm.ContextLength(8192))
	c, err := New(srv.URL()+"/v1", "", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(context.Background()); err != nil || c.NumCtx() != 8192 {
		t.Fatalf("NumCtx %d, %v", c.NumCtx(), err)
	}
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Endpoint, "/api/") {
			t.Errorf("probed %s", r.Endpoint)
		}
	}
}
