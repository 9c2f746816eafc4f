package llamacpp

import (
	"context"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// CountTokens asks llama-server's POST /tokenize.
func TestCountTokens(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.TokenRatio(1.5))
	c, err := New(srv.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("abcd", 400)
	n, err := c.CountTokens(context.Background(), text)
	if err != nil || n != 600 {
		t.Fatalf("CountTokens = %d, %v; want 600", n, err)
	}
	var asked bool
	for _, r := range srv.Requests() {
		asked = asked || r.Endpoint == "/tokenize" && strings.Contains(string(r.Body), `"content"`)
	}
	if !asked {
		t.Error("no POST /tokenize")
	}
}
