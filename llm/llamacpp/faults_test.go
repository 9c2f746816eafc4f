package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

func TestContextExceededIsTypedAndSentOnce(t *testing.T) {
	for _, without := range []string{"", "/apply-template"} {
		t.Run("without "+without, func(t *testing.T) {
			var opts []fakellm.Option
			if without != "" {
				opts = append(opts, fakellm.Without(without))
			}
			opts = append(opts, fakellm.ContextLength(1024), fakellm.Slots(2), fakellm.EnforceContext())
			srv := fakellm.New(t, answer("never"), opts...)
			c := newClient(t, srv.URL())
			_, err := c.Generate(context.Background(), llm.Request{Prompt: strings.Repeat("long prompt ", 300)}, nil)
			var ce *llm.ContextExceededError
			if !errors.As(err, &ce) || !errors.Is(err, llm.ErrContextExceeded) || ce.NCtx != 512 || ce.PromptTokens <= 512 {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if !strings.Contains(err.Error(), "512 tokens per slot") {
				t.Errorf("message %q", err)
			}
			if n := len(srv.Generations()); n != 1 {
				t.Errorf("%d generation requests, want 1", n)
			}
		})
	}
}

func TestSlotContextFromProps(t *testing.T) {
	tests := []struct {
		name string
		opts []fakellm.Option
	}{
		{"recent /props", []fakellm.Option{fakellm.ContextLength(8192), fakellm.Slots(2)}},
		{"older /props with a top-level n_ctx", []fakellm.Option{fakellm.ContextLength(8192), fakellm.Slots(2), fakellm.LegacyProps()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, answer("ok"), tt.opts...)
			c := newClient(t, srv.URL())
			if err := c.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			if c.NumCtx() != 4096 {
				t.Errorf("NumCtx = %d, want 4096 (-c 8192 -np 2)", c.NumCtx())
			}
		})
	}
}

func TestServedModelAdoptedWithoutCheck(t *testing.T) {
	srv := fakellm.New(t, answer("Final Answer: x"), fakellm.Models("qwen2.5-0.5b-instruct"))
	c, err := New(srv.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model() != "qwen2.5-0.5b-instruct" || resp.Model != "qwen2.5-0.5b-instruct" {
		t.Errorf("Model() = %q, response model %q", c.Model(), resp.Model)
	}
}

func TestServedName(t *testing.T) {
	tests := []struct{ alias, path, want string }{
		{"", "/models/Qwen2.5-0.5B-Q4_K_M.gguf", "Qwen2.5-0.5B-Q4_K_M.gguf"},
		{"/models/Qwen2.5-0.5B-Q4_K_M.gguf", "/models/Qwen2.5-0.5B-Q4_K_M.gguf", "Qwen2.5-0.5B-Q4_K_M.gguf"},
		{"qwen", "/models/Qwen2.5-0.5B-Q4_K_M.gguf", "qwen"},
		{"qwen", "", "qwen"},
		{"", `C:\models\tiny.gguf`, "tiny.gguf"},
	}
	for _, tt := range tests {
		if got := servedName(tt.alias, tt.path); got != tt.want {
			t.Errorf("servedName(%q, %q) = %q, want %q", tt.alias, tt.path, got, tt.want)
		}
	}
}

func TestNotALlamaServer(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	ollamaOnly := fakellm.New(t, answer("x"), fakellm.Without("/health", "/props", "/v1/models", "/completion", "/apply-template", "/v1/chat/completions"))
	tests := []struct {
		name, url, looks string
	}{
		{"any HTTP server answering 404", plain.URL, ""},
		{"an Ollama server", ollamaOnly.URL(), "ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.url)
			err := c.Check(context.Background())
			var we *llm.WrongServerError
			if !errors.As(err, &we) || we.Looks != tt.looks || !strings.Contains(err.Error(), "does not look like a llama.cpp server") {
				t.Fatalf("err = %v (%T)", err, err)
			}
		})
	}
}

func TestGenerationLimitEnforcedByClient(t *testing.T) {
	for _, without := range []string{"", "/apply-template"} {
		t.Run("without "+without, func(t *testing.T) {
			opts := []fakellm.Option{}
			if without != "" {
				opts = append(opts, fakellm.Without(without))
			}
			srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "again and ", Endless: true}}}}, opts...)
			c := newClient(t, srv.URL())
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			resp, err := c.Generate(ctx, llm.Request{Prompt: "p", Options: llm.Options{NumPredict: 40}}, nil)
			t.Logf("ended after %s, %d bytes, %d tokens", time.Since(start).Round(time.Millisecond), len(resp.Text), resp.OutputTokens)
			if err != nil || ctx.Err() != nil {
				t.Fatalf("err %v", err)
			}
			if !resp.Truncated() || !resp.CutByClient || resp.OutputTokens < 40 || resp.OutputTokens > 60 {
				t.Errorf("done %q cut %v tokens %d", resp.DoneReason, resp.CutByClient, resp.OutputTokens)
			}
		})
	}
}

func TestLengthStopReported(t *testing.T) {
	// A slot of 256 tokens fills up: llama-server stops with stop_type
	// "limit" whatever n_predict says.
	srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "again and ", Endless: true}}}},
		fakellm.ContextLength(512), fakellm.Slots(2), fakellm.EnforceContext())
	c := newClient(t, srv.URL())
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p", Options: llm.Options{NumPredict: 1000}}, nil)
	if err != nil || !resp.Truncated() || resp.CutByClient {
		t.Errorf("err %v, done %q, cut by client %v", err, resp.DoneReason, resp.CutByClient)
	}
}

func TestPasswordNeverInErrors(t *testing.T) {
	const pw = "s3cretpw"
	withPW := func(u string) string { return strings.Replace(u, "http://", "http://alice:"+pw+"@", 1) }
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"code":500,"message":"boom","type":"server_error"}}`, 500)
	}))
	defer failing.Close()
	for _, u := range []string{fakellm.ClosedURL(t), plain.URL, failing.URL} {
		c := newClient(t, withPW(u))
		_, genErr := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
		checkErr := c.Check(context.Background())
		_, digestErr := c.Digest(context.Background())
		for _, err := range []error{genErr, checkErr, digestErr} {
			if err != nil && strings.Contains(fmt.Sprintf("%v %+v", err, err), pw) {
				t.Errorf("password in error: %v", err)
			}
		}
		if strings.Contains(c.URL(), pw) {
			t.Errorf("URL() = %s", c.URL())
		}
	}
}

func TestTokensCountedOnBrokenStream(t *testing.T) {
	srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: strings.Repeat("word ", 40), DieAfter: 9}}}})
	c := newClient(t, srv.URL())
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if err == nil || resp.OutputTokens != 9 {
		t.Errorf("err %v, output tokens %d, want 9", err, resp.OutputTokens)
	}
}

func TestUnreachableHintNamesThePort(t *testing.T) {
	u := fakellm.ClosedURL(t)
	c := newClient(t, u)
	err := c.Check(context.Background())
	port := u[strings.LastIndex(u, ":")+1:]
	if err == nil || !strings.Contains(err.Error(), "--port "+port+" ") {
		t.Errorf("err = %v", err)
	}
}
