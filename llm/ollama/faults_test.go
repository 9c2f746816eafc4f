package ollama

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

// notFoundServer is any HTTP server that is not Ollama: 404 everywhere.
func notFoundServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	return srv
}

func TestWrongServerIsNotAMissingModel(t *testing.T) {
	llamaOnly := fakellm.New(t, nil, fakellm.Without("/api/chat", "/api/show", "/api/tags", "/api/version", "/"))
	tests := []struct {
		name      string
		url       string
		wantWrong bool
		wantLooks string
	}{
		{"any HTTP server answering 404", notFoundServer(t).URL, true, ""},
		{"a llama.cpp server", llamaOnly.URL(), true, "llamacpp"},
		{"Ollama without the model", fakellm.New(t, nil, fakellm.Models("other")).URL(), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.url)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			checkErr := c.Check(ctx)
			_, genErr := c.Generate(ctx, llm.Request{Prompt: "p"}, nil)
			for _, err := range []error{checkErr, genErr} {
				var we *llm.WrongServerError
				if !tt.wantWrong {
					if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "ollama pull") {
						t.Errorf("Ollama without the model: %v", err)
					}
					continue
				}
				if !errors.As(err, &we) || we.Looks != tt.wantLooks {
					t.Fatalf("err = %v (%T), want *llm.WrongServerError looking like %q", err, err, tt.wantLooks)
				}
				msg := err.Error()
				if strings.Contains(msg, "ollama pull") || !strings.Contains(msg, "does not look like Ollama") || !strings.Contains(msg, tt.url) {
					t.Errorf("message %q", msg)
				}
			}
		})
	}
}

func TestPasswordNeverInErrors(t *testing.T) {
	const pw = "s3cretpw"
	withPW := func(u string) string { return strings.Replace(u, "http://", "http://alice:"+pw+"@", 1) }
	var sawAuth bool
	authSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); ok && u == "alice" && p == pw {
			sawAuth = true
		}
		http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
	}))
	defer authSrv.Close()
	hang := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "late"}}}}, fakellm.Latency(time.Minute))
	tests := []struct {
		name string
		url  string
		opts []Option
	}{
		{"unreachable", withPW(fakellm.ClosedURL(t)), nil},
		{"not Ollama", withPW(notFoundServer(t).URL), nil},
		{"server error", withPW(authSrv.URL), nil},
		{"no first byte", withPW(hang.URL()), []Option{llm.WithFirstByteTimeout(100 * time.Millisecond)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.url, tt.opts...)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, genErr := c.Generate(ctx, llm.Request{Prompt: "p"}, nil)
			checkErr := c.Check(ctx)
			for _, err := range []error{genErr, checkErr} {
				if err == nil {
					continue
				}
				if msg := fmt.Sprintf("%v %+v", err, err); strings.Contains(msg, pw) {
					t.Errorf("password in error: %s", msg)
				}
			}
			if genErr == nil {
				t.Error("no error")
			}
			if strings.Contains(c.URL(), pw) {
				t.Errorf("URL() = %s", c.URL())
			}
		})
	}
	if !sawAuth {
		t.Error("the credentials were not sent as basic auth")
	}
	if _, err := New("http://alice:"+pw+"@[::1", "m"); err == nil || strings.Contains(err.Error(), pw) {
		t.Errorf("bad URL error: %v", err)
	}
}

func TestGenerationLimitEnforcedByClient(t *testing.T) {
	huge := strings.Repeat("x", 2<<20) // one 2 MB chunk
	oneChunk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintf(w, `{"model":"m","message":{"role":"assistant","content":%q},"done":false}`+"\n", huge)
		fmt.Fprintln(w, `{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":1}`)
	}))
	defer oneChunk.Close()
	endless := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "again and ", Endless: true}}}})
	tests := []struct {
		name       string
		url        string
		numPredict int
		maxBytes   int
	}{
		{"a server streaming forever", endless.URL(), 50, 50 * 32},
		{"a 2 MB reply in one chunk", oneChunk.URL, 1000, 1000 * 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.url, fakellm.DefaultModel)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			streamed := 0
			start := time.Now()
			resp, err := c.Generate(ctx, llm.Request{Prompt: "p", Options: llm.Options{NumPredict: tt.numPredict}}, func(d string) { streamed += len(d) })
			t.Logf("ended after %s, %d bytes, %d tokens", time.Since(start).Round(time.Millisecond), len(resp.Text), resp.OutputTokens)
			if err != nil || ctx.Err() != nil {
				t.Fatalf("err %v (ctx %v)", err, ctx.Err())
			}
			if !resp.Truncated() || !resp.CutByClient || len(resp.Text) > tt.maxBytes || streamed != len(resp.Text) || resp.OutputTokens == 0 {
				t.Errorf("done %q cut %v, %d bytes kept, %d streamed, %d tokens", resp.DoneReason, resp.CutByClient, len(resp.Text), streamed, resp.OutputTokens)
			}
		})
	}
}

func TestTokensCountedOnBrokenStream(t *testing.T) {
	srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: strings.Repeat("word ", 40), DieAfter: 7}}}})
	c := newClient(t, srv.URL())
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if err == nil || resp.OutputTokens != 7 {
		t.Errorf("err %v, output tokens %d, want 7", err, resp.OutputTokens)
	}
}
