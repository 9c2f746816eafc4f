package ollama

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
)

// Behaviours of real servers (issue 19, "Real servers").

// A server that answers 400 to the judge's format, whatever its words, is
// asked once more with format "json"; the reply is checked against the
// schema, and the fallback is remembered for the run.
func TestJudgeFormatRefusalFallsBack(t *testing.T) {
	srv := fakellm.New(t, answer(`{"analysis": "enough", "status": true}`), fakellm.SamplerRefusal())
	c := newClient(t, srv.URL())
	req := llm.Request{Purpose: llm.PurposeJudge, Prompt: "judge", Schema: judgeSchema, Options: llm.Options{NumPredict: 512}}
	resp, err := c.Generate(context.Background(), req, nil)
	if err != nil || !strings.Contains(resp.Text, `"status": true`) {
		t.Fatalf("%q %v", resp.Text, err)
	}
	var formats []string
	var statuses []int
	for _, r := range srv.Generations() {
		formats = append(formats, string(r.Schema))
		statuses = append(statuses, r.Status)
	}
	if len(formats) != 2 || statuses[0] != 400 || statuses[1] != 200 || formats[1] != `"json"` {
		t.Fatalf("formats %q statuses %v", formats, statuses)
	}
	before := len(srv.Generations())
	if _, err := newClient(t, srv.URL()).Generate(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if after := srv.Generations()[before:]; len(after) != 1 || string(after[0].Schema) != `"json"` {
		t.Errorf("not remembered: %d requests after the fallback", len(after))
	}
}

// A server killed mid-stream cannot be reached: it is not a server error.
func TestKilledServerIsUnreachable(t *testing.T) {
	srv := fakellm.New(t, answer(strings.Repeat("word ", 50)), fakellm.KillAfter(3))
	c := newClient(t, srv.URL())
	_, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach the ollama server") {
		t.Fatalf("err = %v (%T)", err, err)
	}
}

// An OpenAI-compatible server (vLLM) where Ollama was expected is named,
// with the flag to pass.
func TestRecognisesAnOpenAIServer(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.OpenAI())
	c := newClient(t, srv.URL())
	err := c.Check(context.Background())
	var we *llm.WrongServerError
	if !errors.As(err, &we) || we.Looks != "openai" || !strings.Contains(err.Error(), "pass --llm openai") {
		t.Fatalf("err = %v (%T)", err, err)
	}
}

func answer(text string) fakellm.Responder {
	return fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: text}}}}
}
