package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

// Behaviours of real servers (issue 19, "Real servers").

// llama-server's /v1 refuses json_schema with HTTP 400 "Failed to
// initialize samplers: std::exception", words that name no format: the
// judge is still asked again with json_object, and that is remembered.
func TestSamplerRefusalFallsBack(t *testing.T) {
	srv := fakellm.New(t, answer(`{"analysis": "a", "status": true}`), fakellm.SamplerRefusal())
	c, err := New(srv.URL()+"/v1", "", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{Purpose: llm.PurposeJudge, Prompt: "judge", Schema: judgeSchema, Options: llm.Options{NumPredict: 512}}
	resp, err := c.Generate(context.Background(), req, nil)
	if err != nil || !strings.Contains(resp.Text, `"status": true`) {
		t.Fatalf("%q %v", resp.Text, err)
	}
	gens := srv.Generations()
	if len(gens) != 2 || gens[0].Status != 400 || gens[1].Status != 200 || !strings.Contains(string(gens[1].Body), `"json_object"`) {
		t.Fatalf("%d generations", len(gens))
	}
	if _, err := c.Generate(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Generations()); n != 3 {
		t.Errorf("%d generations, want the fallback remembered (3)", n)
	}
}

// Ollama's /v1 lists "tinygo:latest" and takes "tinygo": --model tinygo
// is served.
func TestOllamaImpliedLatestTag(t *testing.T) {
	srv := fakellm.New(t, answer("Final Answer: ok"), fakellm.AsOllama(), fakellm.Models("tinygo"))
	for _, model := range []string{"tinygo", "tinygo:latest"} {
		c, err := New(srv.URL()+"/v1", model, Auth{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Check(context.Background()); err != nil {
			t.Fatalf("--model %s: %v", model, err)
		}
		if resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil); err != nil || resp.Text != "Final Answer: ok" {
			t.Fatalf("--model %s: %+v %v", model, resp, err)
		}
	}
	c, _ := New(srv.URL()+"/v1", "tinygo:q8", Auth{})
	if err := c.Check(context.Background()); !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), `"tinygo:latest"`) {
		t.Errorf("another tag: %v", err)
	}
}

// A server that lists no model gets its own sentence, not "serves
// several".
func TestEmptyModelList(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.AsOllama(), fakellm.Models())
	c, err := New(srv.URL()+"/v1", "", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Check(context.Background())
	if !errors.Is(err, llm.ErrModelNotFound) || strings.Contains(err.Error(), "several") || !strings.Contains(err.Error(), "lists no model") {
		t.Fatalf("err = %v", err)
	}
}

// A server killed mid-stream cannot be reached.
func TestKilledServerIsUnreachable(t *testing.T) {
	srv := server(t, answer(strings.Repeat("word ", 50)), fakellm.KillAfter(3))
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	_, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach the openai server") {
		t.Fatalf("err = %v (%T)", err, err)
	}
}

// Ollama's native API where an OpenAI-compatible root was expected is
// named, with what to pass.
func TestRecognisesOllama(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.AsOllama())
	c, err := New(srv.URL()+"/api", fakellm.DefaultModel, Auth{})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Check(context.Background())
	var we *llm.WrongServerError
	if !errors.As(err, &we) || we.Looks != "ollama" || !strings.Contains(err.Error(), "pass --llm ollama") {
		t.Fatalf("err = %v (%T)", err, err)
	}
}
