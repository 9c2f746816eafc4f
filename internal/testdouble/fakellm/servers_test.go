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

func send(t *testing.T, url, body string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// SamplerRefusal answers a schema with properties with llama-server's own
// 400 and takes a plain object, on every generation endpoint.
func TestSamplerRefusal(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: `{"a": 1}`}}}}, SamplerRefusal())
	schema := `{"type":"object","properties":{"status":{"type":"boolean"}}}`
	for _, tt := range []struct{ path, refused, taken string }{
		{"/completion", `{"prompt":"p","json_schema":` + schema + `}`, `{"prompt":"p","json_schema":{"type":"object"}}`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"p"}],"response_format":{"type":"json_schema","json_schema":{"schema":` + schema + `}}}`,
			`{"messages":[{"role":"user","content":"p"}],"response_format":{"type":"json_object"}}`},
		{"/api/chat", `{"model":"fake-model","stream":false,"messages":[{"role":"user","content":"p"}],"format":` + schema + `}`,
			`{"model":"fake-model","stream":false,"messages":[{"role":"user","content":"p"}],"format":"json"}`},
	} {
		status, body := send(t, srv.URL()+tt.path, tt.refused)
		if status != 400 || !strings.Contains(body, SamplerRefusalMessage) {
			t.Errorf("%s schema: %d %s", tt.path, status, body)
		}
		if status, body := send(t, srv.URL()+tt.path, tt.taken); status != 200 {
			t.Errorf("%s plain object: %d %s", tt.path, status, body)
		}
	}
}

// AsOllama: Ollama's endpoints and /v1 with tagged names; no llama.cpp
// endpoint.
func TestAsOllama(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "hi"}}}}, AsOllama(), Models("tinygo"))
	if status, body := fetch(t, srv.URL()+"/v1/models"); status != 200 || !strings.Contains(body, `"id":"tinygo:latest"`) {
		t.Errorf("/v1/models: %d %s", status, body)
	}
	for _, p := range []string{"/props", "/health"} {
		if status, _ := fetch(t, srv.URL()+p); status != 404 {
			t.Errorf("%s: %d", p, status)
		}
	}
	if status, body := send(t, srv.URL()+"/v1/chat/completions", `{"model":"tinygo","messages":[{"role":"user","content":"p"}]}`); status != 200 {
		t.Errorf("chat with an untagged name: %d %s", status, body)
	}
	if status, body := send(t, srv.URL()+"/v1/chat/completions", `{"model":"other","messages":[{"role":"user","content":"p"}]}`); status != 404 || !strings.Contains(body, "not found") {
		t.Errorf("chat with an unknown model: %d %s", status, body)
	}
	if status, body := fetch(t, New(t, nil, AsOllama(), Models()).URL()+"/v1/models"); status != 200 || !strings.Contains(body, `"data":[]`) {
		t.Errorf("no model pulled: %d %s", status, body)
	}
}

// RequireAPIKey on llama.cpp: 401 "Invalid API Key" but on /health and
// the model list.
func TestLlamaAPIKey(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "hi"}}}}, RequireAPIKey("k"))
	if status, body := fetch(t, srv.URL()+"/props"); status != 401 || !strings.Contains(body, "Invalid API Key") {
		t.Errorf("/props without the key: %d %s", status, body)
	}
	for _, p := range []string{"/health", "/v1/models"} {
		if status, _ := fetch(t, srv.URL()+p); status != 200 {
			t.Errorf("%s: %d", p, status)
		}
	}
	if status, _ := send(t, srv.URL()+"/completion", `{"prompt":"p"}`, "Authorization", "Bearer k"); status != 200 {
		t.Errorf("with the key: %d", status)
	}
}

// A Runaway reply runs to the request's limit and stops there on length.
func TestRunawayStopsOnLength(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "again ", Runaway: true}}}})
	_, body := send(t, srv.URL()+"/api/chat", `{"model":"fake-model","stream":false,"messages":[{"role":"user","content":"p"}],"options":{"num_predict":7}}`)
	var out struct {
		Message    struct{ Content string }
		DoneReason string `json:"done_reason"`
		EvalCount  int    `json:"eval_count"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || out.DoneReason != "length" || out.EvalCount != 7 || !strings.HasPrefix(out.Message.Content, "again again") {
		t.Errorf("%s %v", body, err)
	}
}

// KillAfter: the stream is reset mid-way and nothing listens afterwards.
func TestKillAfter(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: strings.Repeat("w ", 20)}}}}, KillAfter(2))
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/completion", bytes.NewReader([]byte(`{"prompt":"p","stream":true}`)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
	}
	res.Body.Close()
	if sc.Err() == nil {
		t.Error("the stream ended in order")
	}
	if _, err := http.Get(srv.URL() + "/health"); err == nil {
		t.Error("the killed server still answers")
	}
}
