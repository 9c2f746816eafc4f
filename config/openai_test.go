package config

import "testing"

// --llm openai: the address defaults to vLLM's API root and the model to
// the server's (adopted when it serves exactly one), like llama.cpp.
func TestOpenAIBackendDefaults(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		file      string
		args      []string
		wantURL   string
		wantModel string
	}{
		{"flag", map[string]string{}, "", []string{"--llm", "openai"}, "http://127.0.0.1:8000/v1", ""},
		{"config file", map[string]string{}, "llm = \"openai\"\n", nil, "http://127.0.0.1:8000/v1", ""},
		{"with --llm-url and --model", map[string]string{}, "", []string{"--llm", "openai", "--llm-url", "http://gpu:8001/v1", "--model", "Qwen/Qwen2.5-7B-Instruct"},
			"http://gpu:8001/v1", "Qwen/Qwen2.5-7B-Instruct"},
		{"url in the file", map[string]string{}, "llm = \"openai\"\nllm_url = \"http://gpu:30000/v1\"\n", nil, "http://gpu:30000/v1", ""},
		{"OLLAMA_HOST is not for openai", map[string]string{"OLLAMA_HOST": "0.0.0.0:11500"}, "", []string{"--llm", "openai"}, "http://127.0.0.1:8000/v1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := applyFlags(t, tt.env, tt.file, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			s := c.Settings
			if s.LLM != "openai" || s.LLMURL != tt.wantURL || s.Model != tt.wantModel || s.JudgeModel != tt.wantModel {
				t.Errorf("llm %q url %q model %q judge %q; want url %q model %q", s.LLM, s.LLMURL, s.Model, s.JudgeModel, tt.wantURL, tt.wantModel)
			}
		})
	}
}
