package llamacpp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

// Behaviours of real servers (issue 19, "Real servers").

// llama-server refuses the judge's json_schema with HTTP 400 "Failed to
// initialize samplers: std::exception" and takes a plain JSON object: the
// judge is asked once more that way, on either endpoint, and the fallback
// is remembered for the run.
func TestJudgeSchemaRefusalFallsBack(t *testing.T) {
	for _, tt := range []struct {
		name    string
		opts    []fakellm.Option
		second  string
		endpoin string
	}{
		{"/completion", []fakellm.Option{fakellm.SamplerRefusal()}, `{"type":"object"}`, "/completion"},
		{"/v1/chat/completions", []fakellm.Option{fakellm.SamplerRefusal(), fakellm.Without("/apply-template")}, `{}`, "/v1/chat/completions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, answer(`{"analysis": "enough", "status": false}`), tt.opts...)
			c := newClient(t, srv.URL())
			req := llm.Request{Purpose: llm.PurposeJudge, Prompt: "judge", Schema: judgeSchema, Options: llm.Options{NumPredict: 512}}
			resp, err := c.Generate(context.Background(), req, nil)
			if err != nil || !strings.Contains(resp.Text, `"status": false`) {
				t.Fatalf("%q %v", resp.Text, err)
			}
			gens := srv.Generations()
			if len(gens) != 2 || gens[0].Status != 400 || gens[1].Status != 200 || string(gens[1].Schema) != tt.second || gens[1].Endpoint != tt.endpoin {
				for _, g := range gens {
					t.Logf("%s %d %s", g.Endpoint, g.Status, g.Schema)
				}
				t.Fatalf("%d generations", len(gens))
			}
			if _, err := c.Generate(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			if again := srv.Generations()[2:]; len(again) != 1 || again[0].Status != 200 {
				t.Errorf("the fallback is not remembered: %d more requests", len(again))
			}
		})
	}
}

// Ollama, or an OpenAI-compatible server, where llama-server was expected
// is named with the flag to pass — not taken for an old llama-server that
// serves whatever it lists first.
func TestRecognisesOtherServers(t *testing.T) {
	for _, tt := range []struct {
		name, looks, flag string
		srv               *fakellm.Server
	}{
		{"Ollama", "ollama", "--llm ollama", fakellm.New(t, nil, fakellm.AsOllama(), fakellm.Models("tinygo"))},
		{"vLLM", "openai", "--llm openai", fakellm.New(t, nil, fakellm.OpenAI())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.srv.URL(), "")
			if err != nil {
				t.Fatal(err)
			}
			err = c.Check(context.Background())
			var we *llm.WrongServerError
			if !errors.As(err, &we) || we.Looks != tt.looks || !strings.Contains(err.Error(), tt.flag) {
				t.Fatalf("err = %v (%T); model %q", err, err, c.Model())
			}
		})
	}
}

// A server killed mid-stream cannot be reached.
func TestKilledServerIsUnreachable(t *testing.T) {
	for _, without := range []string{"", "/apply-template"} {
		t.Run("without "+without, func(t *testing.T) {
			opts := []fakellm.Option{fakellm.KillAfter(3)}
			if without != "" {
				opts = append(opts, fakellm.Without(without))
			}
			srv := fakellm.New(t, answer(strings.Repeat("word ", 50)), opts...)
			c := newClient(t, srv.URL())
			_, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
			if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach the llamacpp server") {
				t.Fatalf("err = %v (%T)", err, err)
			}
		})
	}
}

const secret = "test-llama-key-0123456789"

// `llama-server --api-key`: the key is sent as a bearer token; without it
// or with a wrong one the error says which variable to set, never the key.
func TestAPIKey(t *testing.T) {
	srv := fakellm.New(t, answer("Final Answer: ok"), fakellm.RequireAPIKey(secret))
	for _, tt := range []struct {
		name    string
		auth    llm.Auth
		wantErr string
	}{
		{"right key", llm.Auth{Key: secret, Var: keyVar}, ""},
		{"no key", llm.Auth{}, "set PREFRAG_LLAMACPP_API_KEY"},
		{"wrong key", llm.Auth{Key: "wrong-" + secret, Var: fallbackKeyVar}, "refused the API key from LLAMA_API_KEY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, srv.URL(), llm.WithAuth(tt.auth))
			_, genErr := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
			for _, err := range []error{c.Check(context.Background()), genErr} {
				if tt.wantErr == "" {
					if err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), secret) {
					t.Errorf("error %v", err)
				}
			}
		})
	}
}

// A wrong --model names the model the server serves.
func TestWrongModelNamesTheServedOne(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.Models("tinygo-q4"))
	c, err := New(srv.URL(), "llama3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	err = c.Check(context.Background())
	if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), `serves "tinygo-q4"`) || !strings.Contains(err.Error(), "--model tinygo-q4") {
		t.Fatalf("err = %v", err)
	}
}
