package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

// Issue 27: every request sends "truncate": false, so Ollama refuses a
// prompt over the context instead of cutting its start; the refusal is
// typed and said in one sentence naming --num-ctx and the context the
// request ran with, never as the runner's raw JSON.
func TestPromptOverContextRefused(t *testing.T) {
	prompt := "Answer in the format below. " + strings.Repeat("some document text here ", 800)
	srv := fakellm.New(t, answer("Final Answer: fine"), fakellm.TruncateLikeOllama())
	c := newClient(t, srv.URL())
	_, err := c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeStep, Prompt: prompt, Options: llm.Options{NumCtx: 1024}}, nil)
	var ce *llm.ContextExceededError
	if !errors.As(err, &ce) || !errors.Is(err, llm.ErrContextExceeded) {
		t.Fatalf("err = %v (%T), want a context refusal", err, err)
	}
	msg := err.Error()
	if ce.NCtx != 1024 || ce.PromptTokens <= 1024 || !strings.Contains(msg, "Ollama's context of 1024 tokens") ||
		!strings.Contains(msg, "raise --num-ctx (this request ran with 1024 tokens)") || strings.ContainsAny(msg, "{}") || strings.Contains(msg, "\n") {
		t.Errorf("refusal %+v: %q", ce, msg)
	}
	for _, g := range srv.Requests() {
		if g.Endpoint == "/api/chat" && g.BodyMap()["truncate"] != false {
			t.Errorf("a chat request without \"truncate\": false: %s", g.Body)
		}
	}
}

// An Ollama that ignores "truncate" cuts the prompt to num_ctx − (num_ctx
// − 4)/2 tokens and answers normally; the reply's prompt_eval_count
// shows it, and the client says so with the context the request ran with.
func TestPromptCutDetected(t *testing.T) {
	prompt := "Answer in the format below. " + strings.Repeat("some document text here ", 800)
	tests := []struct {
		name   string
		numCtx int
		cut    bool
	}{
		{"over num_ctx: cut and said", 1024, true},
		{"within num_ctx: whole", 16384, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, answer("Final Answer: fine"), fakellm.TruncateLikeOllama(), fakellm.IgnoreTruncate())
			c := newClient(t, srv.URL())
			resp, err := c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeStep, Prompt: prompt, Options: llm.Options{NumCtx: tt.numCtx}}, nil)
			var pc *llm.PromptCutError
			if got := errors.As(err, &pc); got != tt.cut {
				t.Fatalf("err = %v (%T), want a cut reported: %v", err, err, tt.cut)
			}
			if !tt.cut {
				return
			}
			kept := llm.OllamaCutKept(tt.numCtx, llm.OllamaKeep)
			if pc.Kept != kept || pc.Sent <= pc.Kept || pc.Context != tt.numCtx || !errors.Is(err, llm.ErrPromptCut) ||
				!strings.Contains(err.Error(), "raise --num-ctx (this request ran with 1024 tokens)") {
				t.Errorf("kept %d of %d: %v", pc.Kept, pc.Sent, err)
			}
			if resp.PromptTokens != kept {
				t.Errorf("PromptTokens %d", resp.PromptTokens)
			}
		})
	}
}

// The refusal is recognised by its status and shape wherever it comes:
// the runner's JSON inside Ollama's message, Ollama's own sentence, an
// error line inside a 200 stream; an unrelated 400 stays a server error.
func TestContextRefusalShapes(t *testing.T) {
	runner := `{"error":{"code":400,"message":"request (4182 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4182,"n_ctx":2048}}`
	tests := []struct {
		name         string
		status       int
		body         string
		prompt, nCtx int // 0: no refusal expected
	}{
		{"runner JSON", 400, mustJSON(map[string]string{"error": runner}), 4182, 2048},
		{"Ollama's sentence", 400, `{"error":"the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length"}`, 0, 4096},
		{"in the stream", 200, `{"model":"fake-model","message":{"role":"assistant","content":""},"done":false}` + "\n" + mustJSON(map[string]string{"error": runner}) + "\n", 4182, 2048},
		{"unrelated 400", 400, `{"error":"invalid options: num_ctx"}`, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-ndjson")
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := newClient(t, srv.URL)
			_, err := c.Generate(context.Background(), llm.Request{Prompt: "x", Options: llm.Options{NumCtx: 4096}}, nil)
			var ce *llm.ContextExceededError
			refused := errors.As(err, &ce)
			if refused != (tt.nCtx > 0) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if refused && (ce.NCtx != tt.nCtx || ce.PromptTokens != tt.prompt || strings.Contains(err.Error(), "{")) {
				t.Errorf("%+v: %v", ce, err)
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The model's own context length (/api/show) caps the context a request
// runs with: a cut there is detected even when num_ctx is larger, and the
// advice is not to raise --num-ctx.
func TestContextCapFromShow(t *testing.T) {
	srv := fakellm.New(t, answer("ok"), fakellm.ContextLength(2048))
	c := newClient(t, srv.URL())
	if err := c.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.ContextCap(); got != 2048 {
		t.Fatalf("ContextCap = %d, want 2048", got)
	}
	if got := c.requestContext(llm.Request{Options: llm.Options{NumCtx: 16384}}); got != 2048 {
		t.Errorf("requestContext = %d", got)
	}
	if fix := c.contextFix(2048); !strings.Contains(fix, "model's own context is 2048 tokens") {
		t.Errorf("fix %q", fix)
	}
}
