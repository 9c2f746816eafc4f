package fakellm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{"full", `{"steps":["s"],"judges":["{}"],"rules":[{"contains":"x","kind":"judge","reply":"r"}],"chunk_delay_ms":3,"latency_ms":1,"models":["m"],"slots":1,"ignore_stop":true}`, ""},
		{"empty", `{}`, ""},
		{"unknown field", `{"step":["typo"]}`, "unknown field"},
		{"bad kind", `{"rules":[{"kind":"judgement"}]}`, "kind must be"},
		{"bad status", `{"rules":[{"status":42}]}`, "not an HTTP status"},
		{"negative delay", `{"chunk_delay_ms":-1}`, "must not be negative"},
		{"two values", `{} {}`, "more than one"},
		{"not json", `steps: [x]`, "invalid character"},
	}
	for _, tt := range tests {
		_, err := ParseConfig([]byte(tt.in))
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestConfigResponder(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"steps":["step one"],"judges":["{\"status\":false}"],
		"rules":[{"contains":"boom","reply":"","status":500,"error":"kaput"},{"contains":"capital","kind":"step","reply":"Paris"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Responder()
	schema := json.RawMessage(`{}`)
	tests := []struct {
		call       Call
		wantText   string
		wantStatus int
	}{
		{Call{Prompt: "the capital?"}, "Paris", 0},
		{Call{Prompt: "the capital?", Schema: schema}, `{"status":false}`, 0},
		{Call{Prompt: "boom"}, "", 500},
		{Call{Prompt: "other"}, "step one", 0},
	}
	for _, tt := range tests {
		got := r.Respond(tt.call)
		if got.Text != tt.wantText || got.Status != tt.wantStatus {
			t.Errorf("Respond(%q) = %+v", tt.call.Prompt, got)
		}
	}
	if n := len(cfg.Options()); n != 0 {
		t.Errorf("%d options from a config that sets none", n)
	}
}

// FuzzParseConfig: arbitrary script files never panic, and an accepted one
// always yields a working responder.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"steps":["a"],"judges":["b"],"rules":[{"contains":"c","kind":"step","reply":"d"}],"chunk_delay_ms":1}`))
	f.Add([]byte(`{"rules":[{"kind":"x"}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			return
		}
		r := cfg.Responder()
		_ = r.Respond(Call{Prompt: "probe"})
		_ = r.Respond(Call{Prompt: "probe", Schema: json.RawMessage(`{}`)})
		_ = cfg.Options()
	})
}

// The context and counting keys of a script make the server count and cut
// as their options say.
func TestConfigCountsAndCuts(t *testing.T) {
	c, err := ParseConfig([]byte(`{"truncate_like_ollama":true,"ignore_truncate":true,"count_by_script":true,"dense_scripts":2}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "ok"}}}}, c.Options()...)
	_, texts := Corpus("chinese")
	res := post(t, srv.URL()+"/api/chat", map[string]any{"model": DefaultModel, "stream": false, "truncate": false,
		"messages": []map[string]string{{"role": "user", "content": texts["01-bridge.txt"]}}, "options": map[string]any{"num_ctx": 512}})
	res.Body.Close()
	if g := srv.Generations(); res.StatusCode != 200 || len(g) != 1 || g[0].KeptTokens != OllamaCutKept(512) || g[0].PromptTokens <= ScriptTokens(texts["01-bridge.txt"]) {
		t.Errorf("HTTP %d, %+v", res.StatusCode, g)
	}
	if _, err := ParseConfig([]byte(`{"dense_scripts":-1}`)); err == nil {
		t.Error("a negative dense_scripts was accepted")
	}
}
