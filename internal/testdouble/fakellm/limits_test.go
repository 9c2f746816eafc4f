package fakellm

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPropsContextShapes(t *testing.T) {
	tests := []struct {
		name      string
		opts      []Option
		nested    any
		top       any
		wantSlots float64
	}{
		{"recent: per-slot n_ctx under default_generation_settings", []Option{ContextLength(8192), Slots(2)}, float64(4096), nil, 2},
		{"legacy: n_ctx at the top level", []Option{ContextLength(8192), Slots(2), LegacyProps()}, nil, float64(4096), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(t, nil, tt.opts...)
			p := getJSON(t, srv.URL()+"/props")
			dgs := p["default_generation_settings"].(map[string]any)
			if dgs["n_ctx"] != tt.nested || p["n_ctx"] != tt.top || p["total_slots"] != tt.wantSlots {
				t.Errorf("props: nested n_ctx %v, top n_ctx %v, slots %v", dgs["n_ctx"], p["n_ctx"], p["total_slots"])
			}
		})
	}
}

func TestEnforceContext(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: strings.Repeat("word ", 200)}}}}, ContextLength(400), Slots(2), EnforceContext())
	// A slot has 200 tokens; a prompt of ~250 tokens does not fit.
	res := post(t, srv.URL()+"/completion", map[string]any{"prompt": strings.Repeat("abcd", 250), "stream": true})
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var e struct {
		Error struct {
			Code          int    `json:"code"`
			Type          string `json:"type"`
			Message       string `json:"message"`
			NPromptTokens int    `json:"n_prompt_tokens"`
			NCtx          int    `json:"n_ctx"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || res.StatusCode != 400 || e.Error.Type != "exceed_context_size_error" ||
		e.Error.NCtx != 200 || e.Error.NPromptTokens != 250 || e.Error.Code != 400 || !strings.Contains(e.Error.Message, "exceeds the available context size") {
		t.Fatalf("over-long prompt: %d %s (%v)", res.StatusCode, body, err)
	}
	// A prompt of 100 tokens leaves 100 for the reply: it stops on "limit".
	res = post(t, srv.URL()+"/completion", map[string]any{"prompt": strings.Repeat("abcd", 100), "stream": true})
	events, _ := sse(t, res.Body)
	final := events[len(events)-1]
	if final["stop_type"] != "limit" || final["tokens_predicted"] != float64(100) {
		t.Errorf("full slot: stop_type %v, tokens_predicted %v", final["stop_type"], final["tokens_predicted"])
	}
	// The chat endpoint says "length".
	res = post(t, srv.URL()+"/v1/chat/completions", map[string]any{"messages": []map[string]string{{"role": "user", "content": strings.Repeat("abcd", 100)}}, "stream": true})
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(raw), `"finish_reason":"length"`) {
		t.Errorf("chat on a full slot did not finish on length: …%s", tailOf(string(raw), 300))
	}
	if n := len(srv.Generations()); n != 3 {
		t.Errorf("generations recorded = %d, want 3", n)
	}
}

func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func TestEndlessIgnoresLimitUntilClientLeaves(t *testing.T) {
	for _, ep := range []string{"/api/chat", "/completion", "/v1/chat/completions"} {
		t.Run(ep, func(t *testing.T) {
			srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "again and ", Endless: true}}}}, ChunkDelay(time.Millisecond))
			body := map[string]any{"stream": true, "n_predict": 5, "max_tokens": 5, "model": DefaultModel,
				"options": map[string]any{"num_predict": 5}}
			switch ep {
			case "/completion":
				body["prompt"] = "go"
			default:
				body["messages"] = []map[string]string{{"role": "user", "content": "go"}}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b, _ := json.Marshal(body)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+ep, strings.NewReader(string(b)))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			sc := bufio.NewScanner(res.Body)
			lines := 0
			for sc.Scan() {
				if strings.TrimSpace(sc.Text()) != "" {
					lines++
				}
				if lines == 50 {
					break
				}
			}
			if lines < 50 {
				t.Fatalf("stream ended after %d lines despite Endless (limit 5)", lines)
			}
		})
	}
}

func TestConfigContextOptions(t *testing.T) {
	c, err := ParseConfig([]byte(`{"context_length": 8192, "enforce_context": true, "legacy_props": true, "slots": 2,
		"rules": [{"contains": "x", "reply": "y", "endless": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(t, c.Responder(), c.Options()...)
	p := getJSON(t, srv.URL()+"/props")
	if p["n_ctx"] != float64(4096) {
		t.Errorf("props n_ctx = %v", p["n_ctx"])
	}
	if r := c.Responder().Respond(Call{Prompt: "x"}); !r.Endless {
		t.Errorf("rule reply = %+v", r)
	}
}

func TestOllamaNumCtxBoundsEachRequest(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "again ", Endless: true}}}}, EnforceContext())
	res := post(t, srv.URL()+"/api/chat", map[string]any{"model": DefaultModel, "stream": true,
		"messages": []map[string]string{{"role": "user", "content": "go"}}, "options": map[string]any{"num_ctx": 600}})
	defer res.Body.Close()
	var last map[string]any
	chunks := 0
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		chunks++
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatal(err)
		}
	}
	prompt := last["prompt_eval_count"].(float64)
	if last["done_reason"] != "length" || last["eval_count"].(float64)+prompt != 600 {
		t.Errorf("after %d chunks: %v", chunks, last)
	}
}
