package ui

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
)

// With --llm openai the TUI's advice is about an OpenAI-compatible server,
// not Ollama.
func TestLLMAdviceOpenAI(t *testing.T) {
	s := engine.RunConfig{Settings: engine.Settings{Model: "Qwen/Qwen2.5-7B-Instruct"}, Wiring: engine.Wiring{LLM: "openai"}}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&llm.UnreachableError{Backend: "openai", Addr: "x"}, "vllm serve"},
		{&llm.ModelNotFoundError{Backend: "openai", Model: "m"}, "/v1/models"},
	} {
		got := llmAdvice(tt.err, s)
		if !strings.Contains(got, tt.want) || strings.Contains(got, "ollama") {
			t.Errorf("llmAdvice(%v) = %q, want it to contain %q", tt.err, got, tt.want)
		}
	}
}
