package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
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
	if !errors.As(err, &pc) || pc.Kept != fakellm.OllamaCutKept(fakellm.OllamaDefaultNumCtx) || !strings.Contains(err.Error(), "OLLAMA_CONTEXT_LENGTH") {
		t.Fatalf("err = %v (%T)", err, err)
	}
	// Once a runner is loaded, /api/ps gives its context.
	c2, _ := New(srv.URL()+"/v1", "tinygo", Auth{})
	if err := c2.Check(context.Background()); err != nil || c2.NumCtx() != fakellm.OllamaDefaultNumCtx {
		t.Errorf("after a load: NumCtx %d, %v", c2.NumCtx(), err)
	}
}

// Issue 27: a native request loaded the runner at 16,384 and /api/ps says
// so, but a /v1 request reloads it at Ollama's default (4,096 a slot). The
// client counts with the default until a /v1 request has run, and the cut
// it reports names the context the request really ran with.
func TestOllamaV1ContextAfterReload(t *testing.T) {
	srv := fakellm.New(t, answer("Final Answer: fine"), fakellm.AsOllama(), fakellm.Models("tinygo"), fakellm.TruncateLikeOllama())
	native, err := http.Post(srv.URL()+"/api/chat", "application/json", strings.NewReader(
		`{"model":"tinygo","stream":false,"messages":[{"role":"user","content":"hi"}],"options":{"num_ctx":16384}}`))
	if err != nil {
		t.Fatal(err)
	}
	native.Body.Close()
	c, _ := New(srv.URL()+"/v1", "tinygo", Auth{})
	if err := c.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.NumCtx(); got != llm.OllamaV1Context {
		t.Errorf("NumCtx with a runner loaded at 16384 by a native request = %d, want the conservative %d", got, llm.OllamaV1Context)
	}
	prompt := "Answer in the format below. " + strings.Repeat("some document text here ", 770) // about 4,624 tokens
	_, err = c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeStep, Prompt: prompt, Options: llm.Options{NumPredict: 64}}, nil)
	var pc *llm.PromptCutError
	if !errors.As(err, &pc) || pc.Context != 4096 || pc.Kept != 2050 || !strings.Contains(err.Error(), "context of 4096 tokens") || strings.Contains(err.Error(), "16384") {
		t.Fatalf("err = %v (%T)", err, err)
	}
	if got := c.NumCtx(); got != 4096 {
		t.Errorf("NumCtx after the reload = %d", got)
	}
}

// A context refusal names the setting of the server that refused, told by
// the shape of its error: llama-server's -c and -np, vLLM's
// --max-model-len, SGLang's --context-length, OpenAI's model choice.
func TestContextRefusalNamesTheServersSetting(t *testing.T) {
	tests := []struct {
		name, body string
		want, not  []string
	}{
		{"llama-server", `{"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`,
			[]string{"(5000 tokens)", "4096 tokens per slot", "-c", "-np"}, []string{"vLLM", "--max-model-len", "{"}},
		{"vLLM", `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5100 tokens (5000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
			[]string{"vLLM's context of 4096 tokens", "--max-model-len"}, []string{"-np", "SGLang"}},
		{"SGLang", `{"object":"error","message":"The input (5000 tokens) is longer than the model's context length (4096 tokens).","type":"BadRequestError","param":null,"code":400}`,
			[]string{"SGLang's context of 4096 tokens", "--context-length"}, []string{"--max-model-len"}},
		{"OpenAI", `{"error":{"message":"This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			[]string{"longer context"}, []string{"--max-model-len", "-np"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/models" {
					w.Write([]byte(`{"object":"list","data":[{"id":"m"}]}`))
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(400)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c, _ := New(srv.URL+"/v1", "m", Auth{})
			_, err := c.Generate(context.Background(), llm.Request{Prompt: "x", Options: llm.Options{NumPredict: 4000}}, nil)
			if !errors.Is(err, llm.ErrContextExceeded) {
				t.Fatalf("err = %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("%q has %q", err, n)
				}
			}
		})
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
