package openai

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

const secret = "sk-test-0123456789abcdef"

// The key is sent as a bearer token; without it or with a wrong one the
// error says which variable to set, and never shows the key.
func TestAPIKey(t *testing.T) {
	srv := server(t, answer("ok"), fakellm.RequireAPIKey(secret))
	for _, tt := range []struct {
		name    string
		auth    Auth
		wantErr string
	}{
		{"right key", Auth{Key: secret, Var: keyVar}, ""},
		{"no key", Auth{}, "set PREFRAG_OPENAI_API_KEY"},
		{"wrong key", Auth{Key: "sk-wrong-" + secret, Var: "OPENAI_API_KEY"}, "refused the API key from OPENAI_API_KEY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, srv, fakellm.DefaultModel, tt.auth)
			errs := []error{c.Check(context.Background())}
			_, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
			errs = append(errs, err)
			for _, err := range errs {
				if tt.wantErr == "" {
					if err != nil {
						t.Fatal(err)
					}
					continue
				}
				var se *llm.ServerError
				if !errors.As(err, &se) || se.Status != 401 || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v", err)
				}
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("the key is in the error: %v", err)
				}
			}
		})
	}
}

// A server that echoes the key in its message does not get it shown.
func TestKeyRedactedFromServerMessages(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/v1", "m", Auth{Key: secret, Var: keyVar})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "Incorrect API key provided: xxxxx") {
		t.Errorf("error %v", err)
	}
}

func TestModelListing(t *testing.T) {
	t.Run("adopts the only served model", func(t *testing.T) {
		srv := server(t, answer("ok"), fakellm.Models("Qwen/Qwen2.5-7B-Instruct"), fakellm.ContextLength(32768))
		c := newClient(t, srv, "", Auth{})
		if err := c.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
		if c.Model() != "Qwen/Qwen2.5-7B-Instruct" || c.NumCtx() != 32768 {
			t.Errorf("model %q ctx %d", c.Model(), c.NumCtx())
		}
		if d, err := c.Digest(context.Background()); err != nil || d != "/models/Qwen/Qwen2.5-7B-Instruct" {
			t.Errorf("digest %q %v", d, err)
		}
	})
	t.Run("adopts it on the first generation without Check", func(t *testing.T) {
		srv := server(t, answer("ok"), fakellm.Models("only"))
		c := newClient(t, srv, "", Auth{})
		resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
		if err != nil || resp.Model != "only" || srv.Generations()[0].BodyMap()["model"] != "only" {
			t.Errorf("%+v %v", resp, err)
		}
	})
	t.Run("several served, none given", func(t *testing.T) {
		srv := server(t, answer("ok"), fakellm.Models("a-model", "b-model"))
		c := newClient(t, srv, "", Auth{})
		err := c.Check(context.Background())
		var me *llm.ModelNotFoundError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), `"a-model", "b-model"`) || !strings.Contains(err.Error(), "--model") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("wrong model", func(t *testing.T) {
		srv := server(t, answer("ok"), fakellm.Models("Qwen/Qwen2.5-7B-Instruct"))
		c := newClient(t, srv, "qwen2.5:7b-instruct", Auth{})
		err := c.Check(context.Background())
		if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "model qwen2.5:7b-instruct not found") ||
			!strings.Contains(err.Error(), `serves "Qwen/Qwen2.5-7B-Instruct"`) {
			t.Errorf("error %v", err)
		}
		// Without Check, the server's 404 is the same typed error.
		c = newClient(t, srv, "qwen2.5:7b-instruct", Auth{})
		_, err = c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
		if !errors.Is(err, llm.ErrModelNotFound) {
			t.Errorf("generate error %v", err)
		}
	})
}

// A prompt that does not fit is typed, names the sizes, and is sent once.
func TestContextExceeded(t *testing.T) {
	srv := server(t, answer("ok"), fakellm.ContextLength(1000), fakellm.EnforceContext())
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	_, err := c.Generate(context.Background(), llm.Request{Prompt: strings.Repeat("long prompt ", 400), Options: llm.Options{NumPredict: 100}}, nil)
	var ce *llm.ContextExceededError
	if !errors.As(err, &ce) || ce.NCtx != 1000 || ce.PromptTokens == 0 || !errors.Is(err, llm.ErrContextExceeded) {
		t.Fatalf("error %v (%T)", err, err)
	}
	if !strings.Contains(err.Error(), "--max-model-len") || strings.Contains(err.Error(), "per slot") {
		t.Errorf("message %q", err)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Status != 400 {
		t.Errorf("requests %+v, want one answered 400", reqs)
	}
}

func TestContextErrorShapes(t *testing.T) {
	tests := []struct {
		name           string
		body           string
		status         int
		prompt, ctxLen int
	}{
		{"OpenAI", `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, 400, 9000, 8192},
		{"vLLM old", `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, 400, 4000, 4096},
		{"vLLM new", `{"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length is 4096 tokens and your request has 3500 input tokens (1024 > 4096 - 3500).","type":"BadRequestError","param":null,"code":400}}`, 400, 3500, 4096},
		{"SGLang", `{"object":"error","message":"The input (40000 tokens) is longer than the model's context length (32768 tokens).","type":"BadRequestError","param":null,"code":400}`, 400, 40000, 32768},
		{"llama-server", `{"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`, 400, 5000, 4096},
		{"LiteLLM", `{"error":{"message":"litellm.ContextWindowExceededError: prompt is too long","type":null,"param":null,"code":"400"}}`, 400, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := parseErrorBody([]byte(tt.body)).contextExceeded(tt.status)
			if ce == nil || ce.PromptTokens != tt.prompt || ce.NCtx != tt.ctxLen {
				t.Errorf("got %+v", ce)
			}
		})
	}
	for _, body := range []string{`{"error":{"message":"Invalid response_format","type":"BadRequestError","code":400}}`, `{"error":"Unauthorized"}`} {
		if ce := parseErrorBody([]byte(body)).contextExceeded(400); ce != nil {
			t.Errorf("%s taken for a context error", body)
		}
	}
	if ce := parseErrorBody([]byte(tests[0].body)).contextExceeded(500); ce != nil {
		t.Error("a 500 taken for a context error")
	}
}

// Each failing answer says what to do; 5xx are retryable, 4xx not.
func TestErrorsSayWhatToDo(t *testing.T) {
	tests := []struct {
		status    int
		want      string
		retryable bool
	}{
		{403, "set PREFRAG_OPENAI_API_KEY", false},
		{429, "rate-limiting", false},
		{500, "see its log", true},
		{503, "not ready", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			srv := server(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Status: tt.status, Error: "nope"}}}})
			c := newClient(t, srv, fakellm.DefaultModel, Auth{})
			_, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
			var se *llm.ServerError
			if !errors.As(err, &se) || se.Status != tt.status || !strings.Contains(err.Error(), tt.want) || se.Retryable() != tt.retryable {
				t.Errorf("error %v", err)
			}
		})
	}
	t.Run("not the API root", func(t *testing.T) {
		srv := server(t, answer("ok"))
		c, err := New(srv.URL()+"/api", fakellm.DefaultModel, Auth{})
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{c.Check(context.Background()), func() error { _, e := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil); return e }()} {
			if !errors.Is(err, llm.ErrWrongServer) || !strings.Contains(err.Error(), "/v1") {
				t.Errorf("error %v", err)
			}
		}
	})
	t.Run("in-stream error", func(t *testing.T) {
		srv := server(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "partial text", Error: "CUDA out of memory"}}}})
		c := newClient(t, srv, fakellm.DefaultModel, Auth{})
		resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
		var se *llm.ServerError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "CUDA out of memory") || resp.Text != "partial text" {
			t.Errorf("%q %v", resp.Text, err)
		}
	})
	t.Run("crash mid-stream", func(t *testing.T) {
		srv := server(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "one two three four", DieAfter: 2}}}})
		c := newClient(t, srv, fakellm.DefaultModel, Auth{})
		resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
		var se *llm.ServerError
		if !errors.As(err, &se) || !se.Retryable() || resp.Text != "one two" || resp.OutputTokens != 2 {
			t.Errorf("%+v %v", resp, err)
		}
	})
}

func TestUnreachable(t *testing.T) {
	closed := fakellm.ClosedURL(t)
	c, err := New(closed+"/v1", "m", Auth{}, llm.WithCheckTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{c.Check(context.Background()), func() error { _, e := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil); return e }()} {
		if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "vllm serve") {
			t.Errorf("error %v", err)
		}
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8000":           "http://h:8000/v1",
		"http://h:8000/":          "http://h:8000/v1",
		"h":                       "http://h:8000/v1",
		"http://h:4000/openai/v1": "http://h:4000/openai/v1",
		"https://u:pw@h/v1":       "https://u:xxxxx@h/v1",
	} {
		c, err := New(in, "m", Auth{})
		if err != nil || c.URL() != want {
			t.Errorf("New(%q): URL %q, %v; want %q", in, c.URL(), err, want)
		}
	}
}

// A server that answers a stream request with one JSON object (stream
// ignored) is read all the same.
func TestNonStreamingAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"whole answer"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":8}}}`)
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/v1", "m", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if err != nil || resp.Text != "whole answer" || resp.PromptTokens != 12 || resp.CachedPromptTokens != 8 || resp.OutputTokens != 2 || resp.DoneReason != "stop" {
		t.Errorf("%+v %v", resp, err)
	}
}

// vLLM refuses a prompt that fits when prompt + max_tokens does not: the
// client asks again with the room left, once.
func TestMaxTokensLoweredToTheRoomLeft(t *testing.T) {
	srv := server(t, answer("short answer"), fakellm.ContextLength(1000), fakellm.EnforceContext())
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	prompt := strings.Repeat("word ", 500) // about 640 tokens with the template
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: prompt, Options: llm.Options{NumPredict: 512}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Status != 400 || reqs[1].Status != 200 {
		t.Fatalf("requests %+v", reqs)
	}
	room := reqs[1].BodyMap()["max_tokens"].(float64)
	if int(room)+resp.PromptTokens != 1000 || resp.Text != "short answer" {
		t.Errorf("retried with max_tokens %v for a %d-token prompt: %+v", room, resp.PromptTokens, resp)
	}
}

// A server that sends its finish and usage but then neither "[DONE]" nor
// the end of the stream does not hold the reply until the idle timeout.
func TestNoWaitForDoneAfterUsage(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := New(srv.URL+"/v1", "m", Auth{}, llm.WithIdleTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if err != nil || resp.Text != "hi" || resp.PromptTokens != 3 {
		t.Fatalf("%+v %v", resp, err)
	}
	if took := time.Since(t0); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}
