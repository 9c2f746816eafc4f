package openai

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/structured"
)

var judgeSchema = json.RawMessage(`{"type":"object","properties":{"analysis":{"type":"string"},"status":{"type":"boolean"}},"required":["analysis","status"]}`)

func server(t testing.TB, r fakellm.Responder, opts ...fakellm.Option) *fakellm.Server {
	t.Helper()
	return fakellm.New(t, r, append([]fakellm.Option{fakellm.OpenAI()}, opts...)...)
}

func newClient(t testing.TB, srv *fakellm.Server, model string, auth Auth, opts ...Option) *Client {
	t.Helper()
	c, err := New(srv.URL()+"/v1", model, auth, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func answer(text string) fakellm.Responder {
	return fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: text}}}}
}

func seed(n int) *int { return &n }

func TestGenerateStreamsWithUsage(t *testing.T) {
	srv := server(t, answer("Thought: look it up\nAction: Search_Engine\nAction Input: pH"))
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	req := llm.Request{Purpose: llm.PurposeStep, Prompt: strings.Repeat("Question: who introduced pH? ", 20), Stop: []string{"Observation:"},
		Options: llm.Options{Temperature: 0.1, TopP: 0.9, Seed: seed(7), NumPredict: 300}}
	var deltas []string
	resp, err := c.Generate(context.Background(), req, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	want := "Thought: look it up\nAction: Search_Engine\nAction Input: pH"
	if resp.Text != want || strings.Join(deltas, "") != want || len(deltas) < 5 {
		t.Errorf("text %q from %d deltas", resp.Text, len(deltas))
	}
	if resp.DoneReason != "stop" || resp.Truncated() || resp.CutByClient {
		t.Errorf("done %q", resp.DoneReason)
	}
	if resp.PromptTokens == 0 || resp.OutputTokens != len(deltas) || resp.CachedPromptTokens != 0 || resp.Model != fakellm.DefaultModel {
		t.Errorf("usage: prompt %d output %d cached %d model %q", resp.PromptTokens, resp.OutputTokens, resp.CachedPromptTokens, resp.Model)
	}
	gens := srv.Generations()
	if len(gens) != 1 || gens[0].Endpoint != "/v1/chat/completions" {
		t.Fatalf("requests %+v", srv.Requests())
	}
	b := gens[0].BodyMap()
	for k, v := range map[string]any{"model": fakellm.DefaultModel, "stream": true, "temperature": 0.1, "top_p": 0.9, "max_tokens": 300.0, "seed": 7.0} {
		if b[k] != v {
			t.Errorf("body %s = %v, want %v", k, b[k], v)
		}
	}
	if so, _ := b["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options %v", b["stream_options"])
	}
	if stop, _ := b["stop"].([]any); len(stop) != 1 || stop[0] != "Observation:" {
		t.Errorf("stop %v", b["stop"])
	}
	if _, ok := b["response_format"]; ok {
		t.Error("response_format sent for a step")
	}
	msgs, _ := b["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["role"] != "user" || msgs[0].(map[string]any)["content"] != req.Prompt {
		t.Errorf("messages %v", msgs)
	}
	// The same prompt again: the server's prefix cache is reported.
	again, err := c.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.CachedPromptTokens == 0 || again.CachedPromptTokens >= again.PromptTokens {
		t.Errorf("cached %d of %d prompt tokens", again.CachedPromptTokens, again.PromptTokens)
	}
}

func TestMaxTokensAlwaysSent(t *testing.T) {
	srv := server(t, answer("ok"), fakellm.ContextLength(8000))
	for _, tt := range []struct {
		name  string
		check bool
		opts  llm.Options
		want  float64
	}{
		{"request limit", false, llm.Options{NumPredict: 64}, 64},
		{"no limit, nothing known", false, llm.Options{}, 16384},
		{"no limit, num_ctx", false, llm.Options{NumCtx: 4096}, 1024},
		{"no limit, server context", true, llm.Options{}, 2000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, srv, fakellm.DefaultModel, Auth{})
			if tt.check {
				if err := c.Check(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.Generate(context.Background(), llm.Request{Prompt: "p", Options: tt.opts}, nil); err != nil {
				t.Fatal(err)
			}
			gens := srv.Generations()
			if got := gens[len(gens)-1].BodyMap()["max_tokens"]; got != tt.want {
				t.Errorf("max_tokens %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLengthFinishReason(t *testing.T) {
	srv := server(t, answer(strings.Repeat("word ", 50)))
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p", Options: llm.Options{NumPredict: 10}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Truncated() || resp.CutByClient || resp.OutputTokens != 10 {
		t.Errorf("done %q cut %v output %d", resp.DoneReason, resp.CutByClient, resp.OutputTokens)
	}
}

// A server that ignores max_tokens and streams forever is cut off by the
// client at the request's limit (plus slack), in bounded time.
func TestGenerationLimitEnforcedByClient(t *testing.T) {
	srv := server(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "more words ", Endless: true}}}})
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := 0
	resp, err := c.Generate(ctx, llm.Request{Prompt: "p", Options: llm.Options{NumPredict: 100}}, func(string) { n++ })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cut after %d deltas in %v", n, time.Since(t0))
	if !resp.CutByClient || !resp.Truncated() || n > 100+100/8+8 || n < 100 {
		t.Errorf("cut %v done %q after %d deltas", resp.CutByClient, resp.DoneReason, n)
	}
}

// The client does not rely on the server's stop: with a server that
// ignores it (and then streams forever), the reply still ends before
// "Observation:", no delta shows part of it, and the client stops reading
// there rather than at the generation limit.
func TestClientCutsAtStop(t *testing.T) {
	invented := "Thought: search\nAction: Search_Engine\nAction Input: x\nObservation: INVENTED FACT\nThought: done\nFinal Answer: wrong "
	for _, ignore := range []bool{false, true} {
		var opts []fakellm.Option
		if ignore {
			opts = append(opts, fakellm.IgnoreStop())
		}
		srv := server(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: invented, Endless: ignore}}}}, opts...)
		c := newClient(t, srv, fakellm.DefaultModel, Auth{})
		var deltas []string
		resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p", Stop: []string{"Observation:"}, Options: llm.Options{NumPredict: 1000}},
			func(d string) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatal(err)
		}
		want := "Thought: search\nAction: Search_Engine\nAction Input: x\n"
		if resp.Text != want || strings.Join(deltas, "") != want || resp.DoneReason != "stop" || resp.CutByClient {
			t.Errorf("ignore=%v: text %q done %q cut %v", ignore, resp.Text, resp.DoneReason, resp.CutByClient)
		}
		for _, d := range deltas {
			if strings.Contains(d, "Obs") {
				t.Errorf("ignore=%v: a delta shows part of the stop: %q", ignore, d)
			}
		}
	}
}

func TestJudgeAsksForJSONSchema(t *testing.T) {
	srv := server(t, answer(`{"analysis": "yes", "status": true}`))
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	resp, err := c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeJudge, Prompt: "judge", Schema: judgeSchema, Options: llm.Options{NumPredict: 512}}, nil)
	if err != nil || !strings.Contains(resp.Text, `"status": true`) {
		t.Fatalf("%q %v", resp.Text, err)
	}
	rf, _ := srv.Generations()[0].BodyMap()["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	schema, _ := js["schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] == "" || js["strict"] != true || schema["type"] != "object" || schema["additionalProperties"] != false {
		t.Errorf("response_format %v", rf)
	}
	if req, _ := schema["required"].([]any); len(req) != 2 {
		t.Errorf("schema %v", schema)
	}
}

// A server that refuses json_schema is asked again with json_object, the
// reply is validated, and the fallback is remembered.
func TestSchemaRefusedFallsBackToJSONObject(t *testing.T) {
	var judged atomic.Int32
	srv := server(t, fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		if judged.Add(1) == 1 {
			return fakellm.Reply{Text: `{"analysis": "no status field"}`} // valid JSON, wrong shape
		}
		return fakellm.Reply{Text: "```json\n{\"analysis\": \"ok\", \"status\": false}\n```"}
	}), fakellm.RefuseJSONSchema())
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	req := llm.Request{Purpose: llm.PurposeJudge, Prompt: "judge", Schema: judgeSchema, Options: llm.Options{NumPredict: 512}}
	resp, err := c.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Text, `"status": false`) {
		t.Errorf("text %q", resp.Text)
	}
	var kinds []string
	var statuses []int
	for _, r := range srv.Requests() {
		if r.Endpoint != "/v1/chat/completions" {
			continue
		}
		rf, _ := r.BodyMap()["response_format"].(map[string]any)
		kinds = append(kinds, rf["type"].(string))
		statuses = append(statuses, r.Status)
	}
	if strings.Join(kinds, " ") != "json_schema json_object json_object" || statuses[0] != 400 {
		t.Errorf("response formats %v statuses %v", kinds, statuses)
	}
	if resp.OutputTokens == 0 || resp.PromptTokens == 0 {
		t.Errorf("tokens of both answered calls: %+v", resp)
	}
	// Remembered: the next judge call goes straight to json_object, from a
	// new client for the same server and model too.
	before := len(srv.Requests())
	c2 := newClient(t, srv, fakellm.DefaultModel, Auth{})
	if _, err := c2.Generate(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	after := srv.Requests()[before:]
	if len(after) != 1 || !strings.Contains(string(after[0].Body), `"json_object"`) {
		t.Errorf("after the fallback: %d requests, %s", len(after), after[0].Body)
	}
}

// A server that takes no response_format at all still gets the judge's
// prompt, and its reply is validated.
func TestResponseFormatRefusedAltogether(t *testing.T) {
	srv := server(t, answer(`{"analysis": "fine", "status": true}`), fakellm.RefuseResponseFormat())
	c := newClient(t, srv, fakellm.DefaultModel, Auth{})
	resp, err := c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeJudge, Prompt: "judge", Schema: judgeSchema}, nil)
	if err != nil || !strings.Contains(resp.Text, `"status": true`) {
		t.Fatalf("%q %v", resp.Text, err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want json_schema, json_object, none", n)
	}
	if last := srv.Requests()[2].BodyMap(); last["response_format"] != nil {
		t.Errorf("last request still has response_format %v", last["response_format"])
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		reply string
		ok    bool
	}{
		{`{"analysis": "a", "status": true}`, true},
		{"  ```json\n{\"analysis\": \"a\", \"status\": false}\n```  ", true},
		{`{"analysis": "a"}`, false},
		{`{"analysis": "a", "status": "true"}`, false},
		{`{"analysis": 3, "status": true}`, false},
		{`[1,2]`, false},
		{`not json`, false},
		{`{"analysis": "a", "status": true} {"x": 1}`, false},
		{`{"analysis": "a", "status": true, "extra": 1}`, true},
	}
	for _, tt := range tests {
		if err := structured.Validate(judgeSchema, tt.reply); (err == nil) != tt.ok {
			t.Errorf("Validate(%q) = %v, want ok %v", tt.reply, err, tt.ok)
		}
	}
	strict := strictSchema(judgeSchema)
	if err := structured.Validate(strict, `{"analysis": "a", "status": true, "extra": 1}`); err == nil {
		t.Error("additionalProperties false not enforced")
	}
	enum := []byte(`{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]},"l":{"type":"array","items":{"type":"string"}}}}`)
	for reply, ok := range map[string]bool{`{"n": 2, "l": ["a"]}`: true, `{"n": 3}`: false, `{"n": 1.5}`: false, `{"l": [1]}`: false} {
		if err := structured.Validate(enum, reply); (err == nil) != ok {
			t.Errorf("Validate(%s) = %v, want ok %v", reply, err, ok)
		}
	}
}

func TestIsFormatRefusal(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{&llm.ServerError{Status: 400, Message: "response_format type json_schema is not supported"}, true},
		{&llm.ServerError{Status: 422, Message: "Input should be 'text' or 'json_object'"}, true},
		{&llm.ServerError{Status: 500, Message: "Failed to apply the chat template with json_schema"}, true},
		{&llm.ServerError{Status: 500, Message: "CUDA out of memory"}, false},
		{&llm.ServerError{Status: 400, Message: "The provided JSON schema contains features not supported by xgrammar."}, true},
		{&llm.ServerError{Status: 401, Message: "response_format"}, false},
		// A 400 to a request carrying response_format is a refusal whatever
		// its words (llama-server's own).
		{&llm.ServerError{Status: 400, Message: "Failed to initialize samplers: std::exception", Type: "invalid_request_error"}, true},
		{&llm.ContextExceededError{Backend: backend}, false},
		{nil, false},
	} {
		if got := structured.IsRefusal(tt.err); got != tt.want {
			t.Errorf("IsRefusal(%v) = %v", tt.err, got)
		}
	}
}

// llama-server's own /v1 (the fake without the OpenAI option speaks
// llama-server's shapes): model adopted, text, usage with cached tokens.
func TestAgainstLlamaServerV1(t *testing.T) {
	srv := fakellm.New(t, answer("Final Answer: 42"))
	c, err := New(srv.URL()+"/v1", "", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(context.Background()); err != nil || c.Model() != fakellm.DefaultModel {
		t.Fatalf("check: %v, model %q", err, c.Model())
	}
	req := llm.Request{Prompt: strings.Repeat("shared prefix ", 50), Stop: []string{"Observation:"}, Options: llm.Options{NumPredict: 64}}
	for i := 0; i < 2; i++ {
		resp, err := c.Generate(context.Background(), req, nil)
		if err != nil || resp.Text != "Final Answer: 42" || resp.PromptTokens == 0 || resp.OutputTokens == 0 {
			t.Fatalf("%+v %v", resp, err)
		}
		if i == 1 && resp.CachedPromptTokens == 0 {
			t.Errorf("second call: no cached tokens: %+v", resp)
		}
	}
	if _, err := c.Generate(context.Background(), llm.Request{Prompt: "judge", Schema: judgeSchema}, nil); err != nil {
		t.Fatal(err)
	}
}
