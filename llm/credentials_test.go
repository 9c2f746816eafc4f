package llm

import "testing"

func TestWithoutCredentials(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://u:secret@127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"http://u@host:8080/v1", "http://host:8080/v1"},
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"::bad", "::bad"},
	} {
		if got := WithoutCredentials(tt.in); got != tt.want {
			t.Errorf("WithoutCredentials(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAuthFromEnv: the key of a backend that takes one is read from its
// row's KeyVars as Open reads it — prefrag's own variable first (set but
// empty: send no key), then the server's own when not blank — and never
// from another backend's variable.
func TestAuthFromEnv(t *testing.T) {
	for _, tt := range []struct {
		backend, name string
		env           map[string]string
		want          Auth
	}{
		{"llamacpp", "none", nil, Auth{}},
		{"llamacpp", "prefrag's", map[string]string{"PREFRAG_LLAMACPP_API_KEY": " k1 ", "LLAMA_API_KEY": "k2"}, Auth{Key: "k1", Var: "PREFRAG_LLAMACPP_API_KEY"}},
		{"llamacpp", "llama-server's own", map[string]string{"LLAMA_API_KEY": "k2"}, Auth{Key: "k2", Var: "LLAMA_API_KEY"}},
		{"llamacpp", "empty prefrag's sends none", map[string]string{"PREFRAG_LLAMACPP_API_KEY": "", "LLAMA_API_KEY": "k2"}, Auth{Var: "PREFRAG_LLAMACPP_API_KEY"}},
		{"llamacpp", "OPENAI_API_KEY is not sent to llama-server", map[string]string{"OPENAI_API_KEY": "k3"}, Auth{}},
		{"openai", "none", nil, Auth{}},
		{"openai", "prefrag's", map[string]string{"PREFRAG_OPENAI_API_KEY": " k1 ", "OPENAI_API_KEY": "k2"}, Auth{Key: "k1", Var: "PREFRAG_OPENAI_API_KEY"}},
		{"openai", "fallback", map[string]string{"OPENAI_API_KEY": "k2"}, Auth{Key: "k2", Var: "OPENAI_API_KEY"}},
		{"openai", "empty prefrag's sends none", map[string]string{"PREFRAG_OPENAI_API_KEY": "", "OPENAI_API_KEY": "k2"}, Auth{Var: "PREFRAG_OPENAI_API_KEY"}},
		{"openai", "empty fallback", map[string]string{"OPENAI_API_KEY": " "}, Auth{}},
		{"openai", "LLAMA_API_KEY is not sent to an OpenAI server", map[string]string{"LLAMA_API_KEY": "k3"}, Auth{}},
		{"ollama", "ollama takes no key", map[string]string{"OPENAI_API_KEY": "k2"}, Auth{}},
	} {
		t.Run(tt.backend+"/"+tt.name, func(t *testing.T) {
			got := AuthFromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }, BackendOf(tt.backend).KeyVars...)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
