package llm

import (
	"fmt"
	"strings"
	"testing"
)

func TestOpenAIErrorWording(t *testing.T) {
	many := make([]string, 11)
	for i := range many {
		many[i] = fmt.Sprintf("m%d", i)
	}
	tests := []struct {
		err  error
		want []string
		not  []string
	}{
		{&UnreachableError{Backend: "openai", Addr: "http://gpu:8001/v1"}, []string{"vllm serve MODEL --host gpu --port 8001"}, []string{"ollama"}},
		{&UnreachableError{Backend: "openai", Addr: "http://127.0.0.1/v1"}, []string{"--port 8000`"}, []string{"--host"}},
		{&ModelNotFoundError{Backend: "openai", Model: "x", Served: many}, []string{`"m0"`, `"m7", and 3 more`, "--model"}, []string{`"m8"`, "ollama pull"}},
		{&ModelNotFoundError{Backend: "openai", Served: []string{"a", "b"}}, []string{"no model given", `"a", "b"`}, nil},
		{&ContextExceededError{Backend: "openai", NCtx: 4096, PromptTokens: 5000}, []string{"(5000 tokens)", "context of 4096 tokens, so the server refused it —", "--max-model-len"}, []string{"per slot", "-np"}},
		{&WrongServerError{Backend: "openai", Addr: "http://h/api", Evidence: "GET /api/models answered 404"}, []string{"an OpenAI-compatible server", "ending in /v1"}, nil},
	}
	for _, tt := range tests {
		msg := tt.err.Error()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q lacks %q", msg, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(msg, n) {
				t.Errorf("%q contains %q", msg, n)
			}
		}
	}
}
