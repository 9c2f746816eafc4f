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
