package fakellm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func postJSON(t *testing.T, url string, body any, header map[string]string) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// sseData returns the data values of an event stream, in order.
func sseData(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, v)
		}
	}
	return out
}

func chatBody(extra map[string]any) map[string]any {
	b := map[string]any{"model": DefaultModel, "messages": []map[string]string{{"role": "user", "content": "Question?"}}, "stream": true}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func TestOpenAIModels(t *testing.T) {
	srv := New(t, nil, OpenAI(), Models("a", "b"), ContextLength(4096))
	res, err := http.Get(srv.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Object string `json:"object"`
		Data   []struct {
			ID          string `json:"id"`
			Object      string `json:"object"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Object != "list" || len(out.Data) != 2 || out.Data[1].ID != "b" || out.Data[0].MaxModelLen != 4096 || out.Data[0].Object != "model" {
		t.Errorf("models %+v", out)
	}
	// llama-server's own endpoints are not there.
	for _, p := range []string{"/props", "/completion", "/apply-template", "/api/tags"} {
		r, err := http.Get(srv.URL() + p)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusNotFound && r.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s answered %d", p, r.StatusCode)
		}
	}
}

func TestOpenAIStream(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "one two three Observation: four"}}}}, OpenAI())
	for _, tt := range []struct {
		name      string
		extra     map[string]any
		opts      []Option
		text      string
		finish    string
		withUsage bool
	}{
		{"stop honoured, usage", map[string]any{"stop": []string{"Observation:"}, "stream_options": map[string]bool{"include_usage": true}}, nil, "one two three ", "stop", true},
		{"no usage asked", map[string]any{"stop": "Observation:"}, nil, "one two three ", "stop", false},
		{"max_tokens", map[string]any{"max_tokens": 2, "stream_options": map[string]bool{"include_usage": true}}, nil, "one two", "length", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := postJSON(t, srv.URL()+"/v1/chat/completions", chatBody(tt.extra), nil)
			if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d %s", res.StatusCode, res.Header.Get("Content-Type"))
			}
			data := sseData(t, res.Body)
			if data[len(data)-1] != "[DONE]" {
				t.Fatalf("no [DONE]: %q", data)
			}
			var text strings.Builder
			finish := ""
			var usage map[string]any
			for _, d := range data[:len(data)-1] {
				var c struct {
					Object  string `json:"object"`
					Choices []struct {
						Delta        map[string]any `json:"delta"`
						FinishReason *string        `json:"finish_reason"`
					} `json:"choices"`
					Usage map[string]any `json:"usage"`
				}
				if err := json.Unmarshal([]byte(d), &c); err != nil || c.Object != "chat.completion.chunk" {
					t.Fatalf("chunk %s: %v", d, err)
				}
				for _, ch := range c.Choices {
					if s, ok := ch.Delta["content"].(string); ok {
						text.WriteString(s)
					}
					if ch.FinishReason != nil {
						finish = *ch.FinishReason
					}
				}
				if c.Usage != nil {
					if len(c.Choices) != 0 {
						t.Errorf("usage on a chunk with choices: %s", d)
					}
					usage = c.Usage
				}
			}
			if text.String() != tt.text || finish != tt.finish || (usage != nil) != tt.withUsage {
				t.Errorf("text %q finish %q usage %v", text.String(), finish, usage)
			}
			if usage != nil {
				details, _ := usage["prompt_tokens_details"].(map[string]any)
				if usage["prompt_tokens"].(float64) < 1 || details == nil {
					t.Errorf("usage %v", usage)
				}
			}
		})
	}
}

func TestOpenAINonStreamingAndCache(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "answer text"}}}}, OpenAI())
	prompt := strings.Repeat("a long shared prompt ", 40)
	var cached []float64
	for i := 0; i < 2; i++ {
		body := chatBody(map[string]any{"stream": false, "messages": []map[string]string{{"role": "user", "content": prompt}}})
		res := postJSON(t, srv.URL()+"/v1/chat/completions", body, nil)
		var out struct {
			Object  string `json:"object"`
			Choices []struct {
				Message      map[string]any `json:"message"`
				FinishReason string         `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				PromptTokens        float64            `json:"prompt_tokens"`
				PromptTokensDetails map[string]float64 `json:"prompt_tokens_details"`
			} `json:"usage"`
		}
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		if out.Object != "chat.completion" || out.Choices[0].Message["content"] != "answer text" || out.Choices[0].FinishReason != "stop" {
			t.Errorf("answer %+v", out)
		}
		cached = append(cached, out.Usage.PromptTokensDetails["cached_tokens"])
	}
	if cached[0] != 0 || cached[1] == 0 {
		t.Errorf("cached tokens %v: want 0 then a prefix hit", cached)
	}
}

func TestOpenAIRefusals(t *testing.T) {
	schemaRF := map[string]any{"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "r", "schema": map[string]any{"type": "object"}}}}
	objectRF := map[string]any{"response_format": map[string]any{"type": "json_object"}}
	tests := []struct {
		name   string
		opts   []Option
		body   map[string]any
		header map[string]string
		status int
		want   string
	}{
		{"schema accepted", nil, schemaRF, nil, 200, ""},
		{"schema refused", []Option{RefuseJSONSchema()}, schemaRF, nil, 400, "response_format"},
		{"json_object still taken", []Option{RefuseJSONSchema()}, objectRF, nil, 200, ""},
		{"any format refused", []Option{RefuseResponseFormat()}, objectRF, nil, 400, "response_format"},
		{"key missing", []Option{RequireAPIKey("k")}, nil, nil, 401, "Unauthorized"},
		{"key wrong", []Option{RequireAPIKey("k")}, nil, map[string]string{"Authorization": "Bearer x"}, 401, "Unauthorized"},
		{"key right", []Option{RequireAPIKey("k")}, nil, map[string]string{"Authorization": "Bearer k"}, 200, ""},
		{"unknown model", nil, map[string]any{"model": "gpt-9"}, nil, 404, "The model `gpt-9` does not exist."},
		{"context", []Option{ContextLength(50), EnforceContext()}, map[string]any{"max_tokens": 40}, nil, 400, "maximum context length is 50 tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: `{"a":1}`}}}}, append([]Option{OpenAI()}, tt.opts...)...)
			res := postJSON(t, srv.URL()+"/v1/chat/completions", chatBody(tt.body), tt.header)
			raw, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.status || !strings.Contains(string(raw), tt.want) {
				t.Errorf("status %d body %s", res.StatusCode, raw)
			}
		})
	}
}

// The OpenAI mode does not do the client's job: like vLLM, it honours
// stop sequences (IgnoreStop turns that off) and max_tokens, and nothing
// else is cut for the client.
func TestOpenAIIgnoreStop(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "a b Observation: c"}}}}, OpenAI(), IgnoreStop())
	res := postJSON(t, srv.URL()+"/v1/chat/completions", chatBody(map[string]any{"stop": []string{"Observation:"}, "stream": false}), nil)
	raw, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(raw), "a b Observation: c") {
		t.Errorf("answer %s", raw)
	}
}

func TestConfigOpenAI(t *testing.T) {
	c, err := ParseConfig([]byte(`{"openai": true, "refuse_json_schema": true, "judges": ["{}"]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(t, c.Responder(), c.Options()...)
	schemaRF := map[string]any{"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "r", "schema": map[string]any{}}}}
	if res := postJSON(t, srv.URL()+"/v1/chat/completions", chatBody(schemaRF), nil); res.StatusCode != 400 {
		t.Errorf("status %d", res.StatusCode)
	}
}
