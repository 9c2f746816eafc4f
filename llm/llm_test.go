package llm

import (
	"strings"
	"testing"
)

func TestUnreachableHintNamesTheRealAddress(t *testing.T) {
	tests := []struct {
		backend, addr string
		want          string
		not           string
	}{
		{"llamacpp", "http://127.0.0.1:9191", "--port 9191", "8080"},
		{"llamacpp", "http://gpu-box:8081", "--host gpu-box --port 8081", "8080"},
		{"llamacpp", "http://127.0.0.1:8080", "--port 8080", "--host"},
		{"ollama", "http://127.0.0.1:11434", "`ollama serve`", "OLLAMA_HOST"},
		{"ollama", "http://127.0.0.1:11500", "OLLAMA_HOST=127.0.0.1:11500 ollama serve", "11434"},
	}
	for _, tt := range tests {
		msg := (&UnreachableError{Backend: tt.backend, Addr: tt.addr}).Error()
		if !strings.Contains(msg, tt.want) || strings.Contains(msg, tt.not) {
			t.Errorf("%s %s: %q, want %q and not %q", tt.backend, tt.addr, msg, tt.want, tt.not)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for _, raw := range []string{
		"http://alice:s3cretpw@127.0.0.1:11434",
		"https://alice:s3cretpw@host/ollama/",
		"http://alice:s3cretpw@[::1", // unparseable
		"alice:s3cretpw@host:8080",
	} {
		got := RedactURL(raw)
		if strings.Contains(got, "s3cretpw") {
			t.Errorf("RedactURL(%q) = %q", raw, got)
		}
	}
	if got := RedactURL("http://127.0.0.1:8080"); got != "http://127.0.0.1:8080" {
		t.Errorf("a URL without credentials changed: %q", got)
	}
}

func TestServerErrorRetryable(t *testing.T) {
	tests := []struct {
		status int
		want   bool
	}{{0, true}, {500, true}, {503, true}, {400, false}, {404, false}, {422, false}}
	for _, tt := range tests {
		if got := (&ServerError{Status: tt.status}).Retryable(); got != tt.want {
			t.Errorf("status %d: Retryable = %v", tt.status, got)
		}
	}
}

func TestWrongServerAndContextMessages(t *testing.T) {
	w := (&WrongServerError{Backend: "ollama", Addr: "http://127.0.0.1:9", Evidence: "it answered HTTP 404", Looks: "llamacpp"}).Error()
	if !strings.Contains(w, "does not look like Ollama") || !strings.Contains(w, "--llm llamacpp") || strings.Contains(w, "pull") {
		t.Errorf("wrong server: %q", w)
	}
	c := (&ContextExceededError{Backend: "llamacpp", PromptTokens: 5000, NCtx: 4096, PerSlot: true}).Error()
	if !strings.Contains(c, "5000 tokens") || !strings.Contains(c, "4096 tokens per slot") {
		t.Errorf("context exceeded: %q", c)
	}
}
