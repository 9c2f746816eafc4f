package fakellm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"Hello world", []string{"Hello", " world"}},
		{"  lead", []string{"  lead"}},
		{"a\nb\n\nc ", []string{"a", "\nb", "\n\nc", " "}},
		{"naïve café", []string{"naïve", " café"}},
	}
	for _, tt := range tests {
		got := SplitWords(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Join(got, "") != tt.in {
			t.Errorf("SplitWords(%q) does not join back", tt.in)
		}
	}
}

func TestCutAtStop(t *testing.T) {
	tests := []struct {
		text     string
		stop     []string
		want     string
		wantWord string
	}{
		{"Thought: x\nAction: y\nObservation: z", []string{"Observation:"}, "Thought: x\nAction: y\n", "Observation:"},
		{"abc", nil, "abc", ""},
		{"abc", []string{""}, "abc", ""},
		{"one STOP two END", []string{"END", "STOP"}, "one ", "STOP"},
		{"no stop here", []string{"Observation:"}, "no stop here", ""},
	}
	for _, tt := range tests {
		got, word := CutAtStop(tt.text, tt.stop)
		if got != tt.want || word != tt.wantWord {
			t.Errorf("CutAtStop(%q, %q) = %q, %q; want %q, %q", tt.text, tt.stop, got, word, tt.want, tt.wantWord)
		}
	}
}

func TestScriptQueues(t *testing.T) {
	s := &Script{Steps: []string{"s1", "s2"}, Judges: []string{"j1"}}
	step := Call{Prompt: "p"}
	judge := Call{Prompt: "p", Schema: json.RawMessage(`{"type":"object"}`)}
	tests := []struct {
		call        Call
		want        string
		wantProblem bool
	}{
		{step, "s1", false},
		{judge, "j1", false},
		{step, "s2", false},
		{judge, DefaultJudgeReply, true},
		{step, DefaultStepReply, true},
	}
	for i, tt := range tests {
		r := s.Respond(tt.call)
		if r.Text != tt.want || (r.Problem != "") != tt.wantProblem {
			t.Errorf("reply %d = %q (problem %q), want %q (problem %v)", i, r.Text, r.Problem, tt.want, tt.wantProblem)
		}
	}
	if steps, judges := s.Used(); steps != 2 || judges != 1 {
		t.Errorf("Used() = %d, %d; want 2, 1", steps, judges)
	}
}

func TestRules(t *testing.T) {
	rs := Rules{
		List: []Rule{
			{Contains: "capital", Kind: KindJudge, Reply: Reply{Text: "judge-capital"}},
			{Contains: "capital", Reply: Reply{Text: "any-capital"}},
		},
		Else: ResponderFunc(func(c Call) Reply { return Reply{Text: "else"} }),
	}
	schema := json.RawMessage(`{}`)
	tests := []struct {
		call Call
		want string
	}{
		{Call{Prompt: "the capital of France", Schema: schema}, "judge-capital"},
		{Call{Prompt: "the capital of France"}, "any-capital"},
		{Call{Prompt: "something else"}, "else"},
	}
	for _, tt := range tests {
		if got := rs.Respond(tt.call).Text; got != tt.want {
			t.Errorf("Respond(%q) = %q, want %q", tt.call.Prompt, got, tt.want)
		}
	}
	if r := (Rules{}).Respond(Call{Prompt: "x"}); r.Problem == "" || r.Text != DefaultStepReply {
		t.Errorf("unmatched call without Else = %+v, want default reply with a problem", r)
	}
}

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	res, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func ndjson(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestOllamaChatWire(t *testing.T) {
	srv := New(t, &Script{Steps: []string{"Thought: look\nAction: Search_Engine\nAction Input: x\nObservation: made up"}})
	res := post(t, srv.URL()+"/api/chat", map[string]any{
		"model":    "fake-model",
		"messages": []map[string]string{{"role": "user", "content": "Question: why?"}},
		"options":  map[string]any{"num_ctx": 8192, "temperature": 0.1, "top_p": 0.9, "stop": []string{"Observation:"}},
	})
	if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type = %q", ct)
	}
	lines := ndjson(t, res.Body)
	if len(lines) < 2 {
		t.Fatalf("got %d lines", len(lines))
	}
	var text strings.Builder
	for _, l := range lines[:len(lines)-1] {
		if l["done"] != false || l["model"] != "fake-model" || l["created_at"] == "" {
			t.Errorf("chunk %v lacks model/created_at/done:false", l)
		}
		text.WriteString(l["message"].(map[string]any)["content"].(string))
	}
	if got, want := text.String(), "Thought: look\nAction: Search_Engine\nAction Input: x\n"; got != want {
		t.Errorf("streamed %q, want %q (cut at the stop sequence)", got, want)
	}
	final := lines[len(lines)-1]
	for _, k := range []string{"total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration"} {
		if _, ok := final[k]; !ok {
			t.Errorf("final chunk lacks %s: %v", k, final)
		}
	}
	if final["done"] != true || final["done_reason"] != "stop" {
		t.Errorf("final chunk %v", final)
	}
	rec := srv.Generations()
	if len(rec) != 1 || rec[0].Options["num_ctx"] != float64(8192) || !reflect.DeepEqual(rec[0].Stop, []string{"Observation:"}) || rec[0].Status != 200 {
		t.Errorf("recorded %+v", rec)
	}
}

func TestOllamaErrorsAndShapes(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "fine"}}}}, Models("llama3.2", "qwen3:8b"))
	tests := []struct {
		name       string
		path       string
		body       any
		wantStatus int
		wantBody   string
	}{
		{"unknown model chat", "/api/chat", map[string]any{"model": "nope", "messages": []map[string]string{{"role": "user", "content": "hi"}}}, 404, `{"error":"model 'nope' not found"}`},
		{"unknown model show", "/api/show", map[string]any{"model": "nope"}, 404, `{"error":"model 'nope' not found"}`},
		{"missing model", "/api/chat", map[string]any{"messages": []any{}}, 400, `{"error":"model is required"}`},
		{"implicit latest", "/api/show", map[string]any{"model": "llama3.2:latest"}, 200, ""},
		{"explicit tag", "/api/show", map[string]any{"model": "qwen3:8b"}, 200, ""},
		{"load only", "/api/chat", map[string]any{"model": "llama3.2"}, 200, ""},
		{"non-stream", "/api/chat", map[string]any{"model": "llama3.2", "stream": false, "messages": []map[string]string{{"role": "user", "content": "hi"}}}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := post(t, srv.URL()+tt.path, tt.body)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tt.wantStatus, body)
			}
			if tt.wantBody != "" && strings.TrimSpace(string(body)) != tt.wantBody {
				t.Errorf("body %s, want %s", body, tt.wantBody)
			}
			if tt.name == "non-stream" {
				var m map[string]any
				if err := json.Unmarshal(body, &m); err != nil || m["done"] != true || m["message"].(map[string]any)["content"] != "fine" {
					t.Errorf("non-stream answer %s", body)
				}
			}
		})
	}
	res, err := http.Get(srv.URL() + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var tags struct {
		Models []struct{ Name, Digest string }
	}
	if err := json.NewDecoder(res.Body).Decode(&tags); err != nil || len(tags.Models) != 2 ||
		tags.Models[0].Name != "llama3.2:latest" || tags.Models[0].Digest != ModelDigest("llama3.2") {
		t.Errorf("tags = %+v, %v", tags, err)
	}
}

func sse(t *testing.T, r io.Reader) (data []map[string]any, other []string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		v, ok := strings.CutPrefix(line, "data: ")
		if !ok || v == "[DONE]" {
			other = append(other, line)
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		data = append(data, m)
	}
	return data, other
}

func TestLlamaCompletionWireAndCache(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "one two three four five"}}}})
	prompt := strings.Repeat("A long shared prefix of the scratchpad. ", 20)
	complete := func(p string, slot int, extra map[string]any) map[string]any {
		body := map[string]any{"prompt": p, "stream": true, "id_slot": slot, "cache_prompt": true}
		for k, v := range extra {
			body[k] = v
		}
		res := post(t, srv.URL()+"/completion", body)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("status %d, Content-Type %q", res.StatusCode, res.Header.Get("Content-Type"))
		}
		events, _ := sse(t, res.Body)
		final := events[len(events)-1]
		if final["stop"] != true {
			t.Fatalf("last event is not final: %v", final)
		}
		return final
	}
	first := complete(prompt, 0, map[string]any{"n_predict": 3})
	if first["stop_type"] != "limit" || first["tokens_predicted"] != float64(3) {
		t.Errorf("n_predict 3: stop_type %v, tokens_predicted %v", first["stop_type"], first["tokens_predicted"])
	}
	if cache := first["timings"].(map[string]any)["cache_n"]; cache != float64(0) {
		t.Errorf("first call cache_n = %v, want 0", cache)
	}
	second := complete(prompt+"one two three Observation: more", 0, map[string]any{"stop": []string{"four"}})
	tm := second["timings"].(map[string]any)
	evaluated := second["tokens_evaluated"].(float64)
	if tm["cache_n"].(float64) < float64(len(prompt))/4-1 || tm["cache_n"].(float64)+tm["prompt_n"].(float64) != evaluated {
		t.Errorf("second call on the same slot: timings %v, tokens_evaluated %v", tm, evaluated)
	}
	if second["stop_type"] != "word" || second["stopping_word"] != "four" {
		t.Errorf("stop: %v %v", second["stop_type"], second["stopping_word"])
	}
	other := complete(prompt, 1, nil)
	if c := other["timings"].(map[string]any)["cache_n"]; c != float64(0) {
		t.Errorf("slot 1 has its own cache, cache_n = %v", c)
	}

	res := post(t, srv.URL()+"/completion", map[string]any{"prompt": "x", "stream": true, "id_slot": 5})
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 400 || !strings.Contains(string(body), "Invalid slot ID") {
		t.Errorf("slot 5 of 2: %d %s", res.StatusCode, body)
	}
}

func TestLlamaChatStream(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Kind: KindJudge, Reply: Reply{Text: `{"analysis": "ok", "status": false}`}}}})
	res := post(t, srv.URL()+"/v1/chat/completions", map[string]any{
		"messages": []map[string]string{{"role": "user", "content": "judge this"}}, "stream": true,
		"stream_options":  map[string]bool{"include_usage": true},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"schema": map[string]any{"type": "object"}}},
	})
	events, other := sse(t, res.Body)
	var text strings.Builder
	finish := ""
	var usage map[string]any
	for _, e := range events {
		for _, c := range e["choices"].([]any) {
			ch := c.(map[string]any)
			if d, _ := ch["delta"].(map[string]any)["content"].(string); d != "" {
				text.WriteString(d)
			}
			if f, ok := ch["finish_reason"].(string); ok {
				finish = f
			}
		}
		if u, ok := e["usage"].(map[string]any); ok {
			usage = u
		}
	}
	if text.String() != `{"analysis": "ok", "status": false}` || finish != "stop" || usage == nil {
		t.Errorf("text %q, finish %q, usage %v", text.String(), finish, usage)
	}
	if len(other) != 1 || other[0] != "data: [DONE]" {
		t.Errorf("stream does not end with [DONE]: %q", other)
	}
	if rec := srv.Generations(); len(rec) != 1 || string(rec[0].Schema) != `{"type":"object"}` {
		t.Errorf("recorded schema: %+v", rec)
	}
}

func TestDieAfterDropsConnection(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "one two three four", DieAfter: 2}}}})
	for _, tt := range []struct{ path, body string }{
		{"/api/chat", `{"model":"fake-model","messages":[{"role":"user","content":"x"}]}`},
		{"/completion", `{"prompt":"x","stream":true}`},
	} {
		res, err := http.Post(srv.URL()+tt.path, "application/json", strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: read error %v, want unexpected EOF", tt.path, err)
		}
		if strings.Contains(string(body), "three") {
			t.Errorf("%s: got past the second chunk: %s", tt.path, body)
		}
	}
}

func TestServerOptions(t *testing.T) {
	srv := New(t, &Script{Steps: []string{"after the error"}}, ServerErrors(1), Without("/apply-template"), Loading())
	res := post(t, srv.URL()+"/apply-template", map[string]any{"messages": []any{}})
	if res.StatusCode != 404 {
		t.Errorf("Without: status %d", res.StatusCode)
	}
	h, err := http.Get(srv.URL() + "/health")
	if err != nil {
		t.Fatal(err)
	}
	h.Body.Close()
	if h.StatusCode != 503 {
		t.Errorf("loading /health = %d", h.StatusCode)
	}
	srv.SetLoading(false)
	chat := map[string]any{"model": "fake-model", "stream": false, "messages": []map[string]string{{"role": "user", "content": "x"}}}
	if res := post(t, srv.URL()+"/api/chat", chat); res.StatusCode != 500 {
		t.Errorf("first request with ServerErrors(1) = %d", res.StatusCode)
	}
	res = post(t, srv.URL()+"/api/chat", chat)
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil || m["message"].(map[string]any)["content"] != "after the error" {
		t.Errorf("second request: %v %v", m, err)
	}
}

func TestLatencyHonoursCancellation(t *testing.T) {
	srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "late"}}}}, Latency(time.Minute))
	client := &http.Client{Timeout: 200 * time.Millisecond}
	_, err := client.Post(srv.URL()+"/completion", "application/json", strings.NewReader(`{"prompt":"x","stream":true}`))
	if err == nil {
		t.Fatal("expected the client timeout")
	}
	srv.Close() // must not wait a minute for the handler
}

func TestRecordedJSON(t *testing.T) {
	r := Recorded{Method: "POST", Endpoint: "/api/chat", Body: []byte(`{"a":1}`), Slot: -1}
	b, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(b), `"body":{"a":1}`) {
		t.Errorf("JSON body: %s %v", b, err)
	}
	r.Body = []byte("not json")
	if b, _ = json.Marshal(r); !strings.Contains(string(b), `"body":"not json"`) {
		t.Errorf("text body: %s", b)
	}
}

// problemTB records Errorf calls instead of failing the test.
type problemTB struct {
	testing.TB
	msgs []string
}

func (p *problemTB) Errorf(format string, args ...any) {
	p.msgs = append(p.msgs, fmt.Sprintf(format, args...))
}

func TestProblemsBecomeTestFailures(t *testing.T) {
	tb := &problemTB{TB: t}
	srv := New(tb, &Script{Steps: []string{"only one"}})
	chat := map[string]any{"model": "fake-model", "stream": false, "messages": []map[string]string{{"role": "user", "content": "x"}}}
	for range 2 {
		post(t, srv.URL()+"/api/chat", chat)
	}
	if len(tb.msgs) != 1 || !strings.Contains(tb.msgs[0], "script exhausted") {
		t.Errorf("problems reported: %q", tb.msgs)
	}
}

func TestIgnoreStop(t *testing.T) {
	for _, tt := range []struct {
		opts []Option
		want string
	}{
		{nil, "Action: x\n"},
		{[]Option{IgnoreStop()}, "Action: x\nObservation: y"},
	} {
		srv := New(t, Rules{List: []Rule{{Reply: Reply{Text: "Action: x\nObservation: y"}}}}, tt.opts...)
		res := post(t, srv.URL()+"/completion", map[string]any{"prompt": "p", "stop": []string{"Observation:"}})
		var m map[string]any
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil || m["content"] != tt.want {
			t.Errorf("content %q, want %q (%v)", m["content"], tt.want, err)
		}
	}
}
