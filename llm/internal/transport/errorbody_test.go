package transport

import (
	"strings"
	"testing"
)

func TestParseErrorBody(t *testing.T) {
	long := strings.Repeat("x", 400)
	tests := []struct {
		body string
		want ErrorBody
	}{
		{`{"error":{"code":400,"message":"Invalid slot ID","type":"invalid_request_error"}}`, ErrorBody{Code: "400", Message: "Invalid slot ID", Type: "invalid_request_error"}},
		{`{"error":"plain message"}`, ErrorBody{Message: "plain message"}},
		{`{"code":503,"message":"Loading model","type":"unavailable_error"}`, ErrorBody{Code: "503", Message: "Loading model", Type: "unavailable_error"}},
		{"<html>Bad Gateway</html>", ErrorBody{Message: "<html>Bad Gateway</html>"}},
		{`{"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`,
			ErrorBody{Code: "400", Message: "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it", Type: "exceed_context_size_error", NPromptTokens: 5000, NCtx: 4096}},
		{`{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			ErrorBody{Code: "context_length_exceeded", Message: "This model's maximum context length is 8192 tokens.", Type: "invalid_request_error", Param: "messages"}},
		{`{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
			ErrorBody{Code: "404", Message: "The model `x` does not exist.", Type: "NotFoundError"}},
		{`{"detail":"Not Found"}`, ErrorBody{Message: "Not Found"}},
		{`{"detail":[{"msg":"field required"}]}`, ErrorBody{Message: "field required"}},
		{long, ErrorBody{Message: long[:maxMessage] + "…"}},
	}
	for _, tt := range tests {
		if got := ParseErrorBody([]byte(tt.body)); got != tt.want {
			t.Errorf("ParseErrorBody(%.60s) = %+v, want %+v", tt.body, got, tt.want)
		}
	}
	if s := (ErrorBody{Code: "503"}).Status(); s != 503 {
		t.Errorf("status of code 503: %d", s)
	}
	if s := (ErrorBody{Code: "context_length_exceeded"}).Status(); s != 0 {
		t.Errorf("status of a text code: %d", s)
	}
}

// FuzzParseErrorBody reads whatever a server sends as an error: no panic,
// and a message taken from plain text stays bounded.
func FuzzParseErrorBody(f *testing.F) {
	for _, s := range []string{`{"error":{"code":400,"message":"m","type":"t"}}`, `{"error":"m"}`, `{"detail":[{"msg":"m"}]}`, `{"code":"x","message":"m"}`, "<html>", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e := ParseErrorBody(b)
		if !strings.HasPrefix(strings.TrimSpace(string(b)), "{") && len(e.Message) > maxMessage+len("…") {
			t.Fatalf("message of %d bytes from plain text", len(e.Message))
		}
		if s := e.Status(); s != 0 && (s < 100 || s > 599) {
			t.Fatalf("status %d", s)
		}
	})
}
