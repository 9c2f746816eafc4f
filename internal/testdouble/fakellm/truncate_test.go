package fakellm

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestTruncateLikeOllama: a prompt over the context is cut as Ollama
// 0.34.4 cuts it (head's first tokens and the tail, to numCtx − (numCtx −
// 4)/2 tokens), the kept count is reported, and the model sees only what
// was kept.
func TestTruncateLikeOllama(t *testing.T) {
	long := "Answer with FINAL-ANSWER-FORMAT. " + strings.Repeat("lorem ipsum dolor sit amet ", 600) + " THE END"
	longer := "Answer with FINAL-ANSWER-FORMAT. " + strings.Repeat("lorem ipsum dolor sit amet ", 1800) + " THE END"
	tests := []struct {
		name     string
		path     string
		body     map[string]any
		ctx      int
		wantKept int
	}{
		{"native: at the num_ctx sent", "/api/chat", map[string]any{"model": DefaultModel, "stream": false,
			"messages": []map[string]string{{"role": "user", "content": long}}, "options": map[string]any{"num_ctx": 1024}}, 1024, 514},
		{"native: at the default without num_ctx", "/api/chat", map[string]any{"model": DefaultModel, "stream": false,
			"messages": []map[string]string{{"role": "user", "content": longer}}}, OllamaDefaultNumCtx, 2050},
		{"native: truncate true", "/api/chat", map[string]any{"model": DefaultModel, "stream": false, "truncate": true,
			"messages": []map[string]string{{"role": "user", "content": longer}}, "options": map[string]any{"num_ctx": 2048}}, 2048, 1026},
		{"/v1: at the runner default", "/v1/chat/completions", map[string]any{"model": DefaultModel, "stream": false,
			"messages": []map[string]string{{"role": "user", "content": longer}}}, OllamaDefaultNumCtx, 2050},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen Call
			srv := New(t, ResponderFunc(func(c Call) Reply { seen = c; return Reply{Text: "ok"} }), AsOllama(), Models(DefaultModel), TruncateLikeOllama())
			res := post(t, srv.URL()+tt.path, tt.body)
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var out struct {
				PromptEvalCount int `json:"prompt_eval_count"`
				Usage           struct {
					PromptTokens int `json:"prompt_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			if got := max(out.PromptEvalCount, out.Usage.PromptTokens); got != tt.wantKept {
				t.Errorf("reported prompt tokens %d, want the kept %d", got, tt.wantKept)
			}
			kept, cut := seen.Cut()
			if !cut || kept != tt.wantKept || strings.Contains(seen.Prompt, "FINAL-ANSWER-FORMAT") || !strings.HasSuffix(seen.Prompt, "THE END") ||
				!strings.HasPrefix(seen.Prompt, "Answer with FINA") {
				t.Errorf("the model saw %d runes (cut %v, kept %d), head %q", len(seen.Prompt), cut, kept, seen.Prompt[:min(20, len(seen.Prompt))])
			}
			gens := srv.Generations()
			if len(gens) != 1 || gens[0].KeptTokens != tt.wantKept || gens[0].PromptTokens <= tt.wantKept || !strings.Contains(gens[0].Prompt, "FINAL-ANSWER-FORMAT") {
				t.Errorf("record: kept %d of %d", gens[0].KeptTokens, gens[0].PromptTokens)
			}
			ps := getJSON(t, srv.URL()+"/api/ps")
			models, _ := ps["models"].([]any)
			if len(models) != 1 || models[0].(map[string]any)["context_length"] != float64(tt.ctx) {
				t.Errorf("/api/ps: %v", ps)
			}
		})
	}
}

// TestTruncateLikeOllamaShortPrompt: a prompt that fits is left alone.
func TestTruncateLikeOllamaShortPrompt(t *testing.T) {
	var seen Call
	srv := New(t, ResponderFunc(func(c Call) Reply { seen = c; return Reply{Text: "ok"} }), TruncateLikeOllama())
	res := post(t, srv.URL()+"/api/chat", map[string]any{"model": DefaultModel, "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "short"}}, "options": map[string]any{"num_ctx": 1024}})
	res.Body.Close()
	if _, cut := seen.Cut(); cut || seen.Prompt != "short" {
		t.Errorf("a short prompt was cut: %q", seen.Prompt)
	}
}

// TestOllamaRefusesWithTruncateFalse: a native request that sends
// "truncate": false gets the runner's refusal, as Ollama passes it on
// (HTTP 400, the runner's JSON as the message); nothing is generated. An
// older Ollama (IgnoreTruncate) cuts it all the same.
func TestOllamaRefusesWithTruncateFalse(t *testing.T) {
	long := "Answer. " + strings.Repeat("lorem ipsum dolor sit amet ", 600)
	body := map[string]any{"model": DefaultModel, "stream": false, "truncate": false,
		"messages": []map[string]string{{"role": "user", "content": long}}, "options": map[string]any{"num_ctx": 1024}}
	srv := New(t, ResponderFunc(func(c Call) Reply { t.Error("the model was asked"); return Reply{Text: "ok"} }), TruncateLikeOllama())
	res := post(t, srv.URL()+"/api/chat", body)
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var out struct {
		Error string `json:"error"`
	}
	if res.StatusCode != 400 || json.Unmarshal(raw, &out) != nil {
		t.Fatalf("HTTP %d %s", res.StatusCode, raw)
	}
	var inner struct {
		Error struct {
			Message       string `json:"message"`
			Type          string `json:"type"`
			NPromptTokens int    `json:"n_prompt_tokens"`
			NCtx          int    `json:"n_ctx"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out.Error), &inner); err != nil || inner.Error.Type != "exceed_context_size_error" || inner.Error.NCtx != 1024 ||
		inner.Error.NPromptTokens < 1024 || !strings.Contains(inner.Error.Message, "exceeds the available context size (1024 tokens)") {
		t.Errorf("refusal %q (%v)", out.Error, err)
	}

	old := New(t, ResponderFunc(func(c Call) Reply { return Reply{Text: "ok"} }), TruncateLikeOllama(), IgnoreTruncate())
	res = post(t, old.URL()+"/api/chat", body)
	res.Body.Close()
	if g := old.Generations(); res.StatusCode != 200 || len(g) != 1 || g[0].KeptTokens != OllamaCutKept(1024) {
		t.Errorf("an Ollama that ignores truncate: HTTP %d, %+v", res.StatusCode, g)
	}
}
