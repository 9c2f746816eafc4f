package llamacpp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/sse"
)

var judgeSchema = json.RawMessage(`{"type":"object","properties":{"analysis":{"type":"string"},"status":{"type":"boolean"}},"required":["analysis","status"]}`)

func newClient(t testing.TB, url string, opts ...Option) *Client {
	t.Helper()
	c, err := New(url, fakellm.DefaultModel, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func seed(n int) *int { return &n }

func answer(text string) fakellm.Responder {
	return fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: text}}}}
}

func endpoints(srv *fakellm.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, r.Endpoint)
	}
	return out
}

func TestGenerateCompletion(t *testing.T) {
	const step = "Thought: look it up.\nAction: Search_Engine\nAction Input: treaty\nObservation: invented"
	const judge = `{"analysis": "adds the date", "status": true}`
	tests := []struct {
		name       string
		req        llm.Request
		reply      string
		wantText   string
		wantFields map[string]any // exact values expected in the /completion body
		wantAbsent []string
		wantReason string
	}{
		{
			name: "step",
			req: llm.Request{Purpose: llm.PurposeStep, Prompt: "Question: when?", Stop: []string{"Observation:"},
				Options: llm.Options{NumCtx: 16384, Temperature: 0.1, TopP: 0.9}},
			reply:    step,
			wantText: "Thought: look it up.\nAction: Search_Engine\nAction Input: treaty\n",
			wantFields: map[string]any{"stream": true, "cache_prompt": true, "id_slot": 0.0, "n_predict": -1.0,
				"temperature": 0.1, "top_p": 0.9, "stop": []any{"Observation:"}, "model": fakellm.DefaultModel},
			wantAbsent: []string{"json_schema", "seed"},
			wantReason: "stop",
		},
		{
			name: "judge",
			req: llm.Request{Purpose: llm.PurposeJudge, Prompt: "Judge: new?", Schema: judgeSchema,
				Options: llm.Options{Temperature: 0, TopP: 1, Seed: seed(42), NumPredict: 300}},
			reply:    judge,
			wantText: judge,
			wantFields: map[string]any{"id_slot": 1.0, "n_predict": 300.0, "seed": 42.0, "temperature": 0.0, "top_p": 1.0,
				"stop": []any{}, "json_schema": mustAny(judgeSchema)},
			wantReason: "stop",
		},
		{
			name:       "forced answer hits n_predict",
			req:        llm.Request{Purpose: llm.PurposeForced, Prompt: "Answer now.", Options: llm.Options{TopP: 0.9, NumPredict: 3}},
			reply:      "one two three four five",
			wantText:   "one two three",
			wantFields: map[string]any{"id_slot": 0.0, "n_predict": 3.0},
			wantReason: "length",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, answer(tt.reply))
			c := newClient(t, srv.URL())
			var deltas []string
			resp, err := c.Generate(context.Background(), tt.req, func(d string) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tt.wantText || strings.Join(deltas, "") != tt.wantText || len(deltas) < 2 {
				t.Errorf("text %q, deltas %q; want %q streamed word by word", resp.Text, deltas, tt.wantText)
			}
			if resp.PromptTokens <= 0 || resp.OutputTokens != len(deltas) || resp.DoneReason != tt.wantReason || resp.Model != fakellm.DefaultModel {
				t.Errorf("response %+v", resp)
			}
			if got, want := endpoints(srv), []string{"/props", "/apply-template", "/completion"}; !reflect.DeepEqual(got, want) {
				t.Errorf("requests %v, want %v", got, want)
			}
			reqs := srv.Requests()
			tmpl := reqs[1].BodyMap()["messages"].([]any)[0].(map[string]any)
			if tmpl["role"] != "user" || tmpl["content"] != tt.req.Prompt {
				t.Errorf("/apply-template got %v", tmpl)
			}
			body := reqs[2].BodyMap()
			if want := "<|im_start|>user\n" + tt.req.Prompt + "<|im_end|>\n<|im_start|>assistant\n"; body["prompt"] != want {
				t.Errorf("/completion prompt %q, want the templated %q", body["prompt"], want)
			}
			for k, want := range tt.wantFields {
				if !reflect.DeepEqual(body[k], want) {
					t.Errorf("%s sent %#v, want %#v", k, body[k], want)
				}
			}
			for _, k := range tt.wantAbsent {
				if _, ok := body[k]; ok {
					t.Errorf("%s sent, want absent", k)
				}
			}
		})
	}
}

func mustAny(raw json.RawMessage) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		panic(err)
	}
	return v
}

func TestSlots(t *testing.T) {
	tests := []struct {
		name      string
		opts      []fakellm.Option
		wantSlots []int // id_slot of each /completion request: step, judge, judge, step, claim check
	}{
		{"two slots", []fakellm.Option{fakellm.Slots(2)}, []int{0, 1, 1, 0, 1}},
		{"one slot: judge lets the server choose", []fakellm.Option{fakellm.Slots(1), fakellm.HangOnUnknownSlot()}, []int{0, -1, -1, 0, -1}},
		{"no /props, slot rejected once", []fakellm.Option{fakellm.Slots(1), fakellm.Without("/props")}, []int{0, 1, -1, -1, -1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{
				{Kind: fakellm.KindJudge, Reply: fakellm.Reply{Text: `{"analysis":"a","status":true}`}},
				{Reply: fakellm.Reply{Text: "Thought: t"}},
			}}, tt.opts...)
			c := newClient(t, srv.URL())
			// The claim check ("verify") asks for structured output as the
			// judge does, and goes to the judge's slot.
			for _, p := range []llm.Purpose{llm.PurposeStep, llm.PurposeJudge, llm.PurposeJudge, llm.PurposeStep, "verify"} {
				req := llm.Request{Purpose: p, Prompt: "prompt " + string(p)}
				if p != llm.PurposeStep {
					req.Schema = judgeSchema
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_, err := c.Generate(ctx, req, nil)
				cancel()
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
			}
			var got []int
			for _, g := range srv.Generations() {
				got = append(got, g.Slot)
			}
			if !reflect.DeepEqual(got, tt.wantSlots) {
				t.Errorf("id_slot sent %v, want %v", got, tt.wantSlots)
			}
		})
	}
}

func TestStepCacheSurvivesJudge(t *testing.T) {
	srv := fakellm.New(t, &fakellm.Script{
		Steps:  []string{"Thought: first\nAction: Search_Engine\nAction Input: q", "Thought: second"},
		Judges: []string{`{"analysis":"ok","status":true}`},
	})
	c := newClient(t, srv.URL())
	ctx := context.Background()
	prompt := strings.Repeat("Tools, format and the question. ", 50)
	first, err := c.Generate(ctx, llm.Request{Purpose: llm.PurposeStep, Prompt: prompt}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(ctx, llm.Request{Purpose: llm.PurposeJudge, Prompt: "a different judge prompt", Schema: judgeSchema}, nil); err != nil {
		t.Fatal(err)
	}
	second, err := c.Generate(ctx, llm.Request{Purpose: llm.PurposeStep, Prompt: prompt + first.Text + "\nObservation: docs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.CachedPromptTokens != 0 || second.CachedPromptTokens < len(prompt)/4 || second.CachedPromptTokens >= second.PromptTokens {
		t.Errorf("cached prompt tokens: first %d, second %d of %d", first.CachedPromptTokens, second.CachedPromptTokens, second.PromptTokens)
	}
}

func TestChatFallback(t *testing.T) {
	srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{
		{Kind: fakellm.KindJudge, Reply: fakellm.Reply{Text: `{"analysis": "x", "status": false}`}},
		{Reply: fakellm.Reply{Text: "Thought: t\nObservation: no"}},
	}}, fakellm.Without("/apply-template"))
	c := newClient(t, srv.URL())
	step, err := c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeStep, Prompt: "Q", Stop: []string{"Observation:"},
		Options: llm.Options{Temperature: 0.1, TopP: 0.9, NumPredict: 50}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	judge, err := c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeJudge, Prompt: "J", Schema: judgeSchema}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if step.Text != "Thought: t\n" || judge.Text != `{"analysis": "x", "status": false}` {
		t.Errorf("texts %q, %q", step.Text, judge.Text)
	}
	if step.PromptTokens <= 0 || step.OutputTokens != 3 || step.DoneReason != "stop" {
		t.Errorf("step response %+v", step)
	}
	want := []string{"/props", "/apply-template", "/v1/chat/completions", "/v1/chat/completions"}
	if got := endpoints(srv); !reflect.DeepEqual(got, want) {
		t.Errorf("requests %v, want %v (the missing endpoint is asked once)", got, want)
	}
	gens := srv.Generations()
	sb := gens[0].BodyMap()
	for k, v := range map[string]any{"stream": true, "cache_prompt": true, "id_slot": 0.0, "max_tokens": 50.0, "temperature": 0.1, "top_p": 0.9} {
		if !reflect.DeepEqual(sb[k], v) {
			t.Errorf("chat step %s = %#v, want %#v", k, sb[k], v)
		}
	}
	if gens[1].Slot != 1 || !jsonEqual(gens[1].Schema, judgeSchema) {
		t.Errorf("chat judge slot %d, schema %s", gens[1].Slot, gens[1].Schema)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name     string
		reply    fakellm.Reply
		opts     []fakellm.Option
		check    func(error) bool
		wantText string
	}{
		{"HTTP 500", fakellm.Reply{Status: 500, Error: "decode failed"}, nil, func(err error) bool {
			var se *llm.ServerError
			return errors.As(err, &se) && se.Status == 500 && strings.Contains(se.Message, "decode failed")
		}, ""},
		{"dies mid-stream", fakellm.Reply{Text: "alpha beta gamma", DieAfter: 2}, nil, func(err error) bool {
			var se *llm.ServerError
			return errors.As(err, &se)
		}, "alpha beta"},
		{"dies mid-stream on the chat endpoint", fakellm.Reply{Text: "alpha beta gamma", DieAfter: 1},
			[]fakellm.Option{fakellm.Without("/apply-template")}, func(err error) bool {
				var se *llm.ServerError
				return errors.As(err, &se)
			}, "alpha"},
		{"error event inside the stream", fakellm.Reply{Text: "alpha", Error: "KV cache full"}, nil, func(err error) bool {
			var se *llm.ServerError
			return errors.As(err, &se) && strings.Contains(se.Message, "KV cache full")
		}, "alpha"},
		{"loading", fakellm.Reply{Text: "x"}, []fakellm.Option{fakellm.Loading()}, func(err error) bool {
			return errors.Is(err, llm.ErrLoading)
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: tt.reply}}}, tt.opts...)
			c := newClient(t, srv.URL())
			resp, err := c.Generate(context.Background(), llm.Request{Purpose: llm.PurposeStep, Prompt: "p"}, nil)
			if err == nil || !tt.check(err) {
				t.Fatalf("error %v (%T)", err, err)
			}
			if resp.Text != tt.wantText {
				t.Errorf("partial text %q, want %q", resp.Text, tt.wantText)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	c := newClient(t, fakellm.ClosedURL(t))
	start := time.Now()
	_, genErr := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	checkErr := c.Check(context.Background())
	_, digestErr := c.Digest(context.Background())
	for _, err := range []error{genErr, checkErr, digestErr} {
		var ue *llm.UnreachableError
		if !errors.Is(err, llm.ErrUnreachable) || !errors.As(err, &ue) || ue.Backend != "llamacpp" {
			t.Errorf("error %v (%T), want *llm.UnreachableError", err, err)
		}
	}
	// A hang guard, not a speed measurement.
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := fakellm.New(t, answer(strings.Repeat("word ", 500)), fakellm.ChunkDelay(20*time.Millisecond))
	c := newClient(t, srv.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	start := time.Now()
	resp, err := c.Generate(ctx, llm.Request{Prompt: "p"}, func(string) { once.Do(cancel) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if resp.Text == "" {
		t.Error("lost the text received before the cancellation")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancellation took %s (the stream would take 10 s)", d)
	}
}

func TestStallTimeouts(t *testing.T) {
	tests := []struct {
		name     string
		srvOpts  []fakellm.Option
		cliOpts  []Option
		wantText string
		wantMsg  string
	}{
		{"idle between events", []fakellm.Option{fakellm.ChunkDelay(400 * time.Millisecond)},
			[]Option{llm.WithIdleTimeout(100 * time.Millisecond)}, "a", "stalled"},
		{"no first event", []fakellm.Option{fakellm.Latency(time.Minute)},
			[]Option{llm.WithFirstByteTimeout(100 * time.Millisecond)}, "", "no answer within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, answer("a b c"), tt.srvOpts...)
			c := newClient(t, srv.URL(), tt.cliOpts...)
			resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
			var se *llm.ServerError
			if !errors.As(err, &se) || !strings.Contains(se.Message, tt.wantMsg) {
				t.Fatalf("error %v, want a ServerError saying %q", err, tt.wantMsg)
			}
			if resp.Text != tt.wantText {
				t.Errorf("text %q, want %q", resp.Text, tt.wantText)
			}
		})
	}
}

// TestSlowPromptAfterEarlyHeaders: headers that arrive before the prompt is
// evaluated do not start the idle limit; only streamed bytes do.
func TestSlowPromptAfterEarlyHeaders(t *testing.T) {
	srv := fakellm.New(t, answer("a b c"), fakellm.EarlyHeaders(), fakellm.Latency(600*time.Millisecond))
	c := newClient(t, srv.URL(), llm.WithIdleTimeout(300*time.Millisecond), llm.WithFirstByteTimeout(10*time.Second))
	resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
	if err != nil || resp.Text != "a b c" {
		t.Fatalf("Generate = %q, %v", resp.Text, err)
	}
}

// silentServer accepts connections and never answers; it stops with the test.
func silentServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

func TestCheck(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.Models("Qwen2.5-7B-Instruct-Q4_K_M"))
	loading := fakellm.New(t, nil, fakellm.Loading())
	tests := []struct {
		name      string
		url       string
		model     string
		check     func(error) bool
		wantModel string
	}{
		{"same name", srv.URL(), "Qwen2.5-7B-Instruct-Q4_K_M", func(err error) bool { return err == nil }, "Qwen2.5-7B-Instruct-Q4_K_M"},
		{"loose name", srv.URL(), "qwen2.5:7b", func(err error) bool { return err == nil }, "qwen2.5:7b"},
		{"no name adopts the server's", srv.URL(), "", func(err error) bool { return err == nil }, "Qwen2.5-7B-Instruct-Q4_K_M"},
		{"other model", srv.URL(), "llama3.1-8b", func(err error) bool {
			var me *llm.ModelNotFoundError
			return errors.As(err, &me) && me.Backend == "llamacpp"
		}, "llama3.1-8b"},
		{"loading", loading.URL(), "", func(err error) bool { return errors.Is(err, llm.ErrLoading) }, ""},
		{"no answer", silentServer(t), "x", func(err error) bool {
			return errors.Is(err, llm.ErrTimeout) && !errors.Is(err, llm.ErrUnreachable) && strings.Contains(err.Error(), "--llm-timeout")
		}, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.url, tt.model, llm.WithCheckTimeout(300*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Check(context.Background()); !tt.check(err) {
				t.Fatalf("Check = %v (%T)", err, err)
			}
			if c.Model() != tt.wantModel {
				t.Errorf("Model() = %q, want %q", c.Model(), tt.wantModel)
			}
		})
	}
	c := newClient(t, srv.URL())
	if err := c.Check(context.Background()); err == nil || c.NumCtx() <= 0 {
		t.Errorf("Check of another model: %v; NumCtx %d", err, c.NumCtx())
	}
}

func TestDigest(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.Models("tiny"))
	noProps := fakellm.New(t, nil, fakellm.Without("/props"))
	tests := []struct {
		url, model, want string
	}{
		{srv.URL(), "", "/models/tiny.gguf"},
		{noProps.URL(), "given-name", "given-name"},
	}
	for _, tt := range tests {
		c, err := New(tt.url, tt.model)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.Digest(context.Background()); got != tt.want || err != nil {
			t.Errorf("Digest = %q, %v; want %q", got, err, tt.want)
		}
	}
}

func TestModelMatches(t *testing.T) {
	tests := []struct {
		want  string
		names []string
		match bool
	}{
		{"qwen2.5:7b", []string{"/models/Qwen2.5-7B-Instruct-Q4_K_M.gguf"}, true},
		{"Qwen2.5-7B-Instruct-Q4_K_M.gguf", []string{"", "qwen2.5-7b-instruct-q4_k_m"}, true},
		{"gemma", []string{"gemma-3-4b-it"}, true},
		{"llama3.1", []string{"qwen3-8b", `C:\models\mistral.gguf`}, false},
		{"x", []string{"", ""}, false},
	}
	for _, tt := range tests {
		if got := modelMatches(tt.want, tt.names); got != tt.match {
			t.Errorf("modelMatches(%q, %q) = %v", tt.want, tt.names, got)
		}
	}
}

// FuzzReadEvents parses arbitrary event streams: no panic, fields never
// contain the separator, and every event decodes or fails cleanly.
func FuzzReadEvents(f *testing.F) {
	f.Add([]byte("data: {\"content\":\"Hi\",\"stop\":false}\n\ndata: {\"content\":\"\",\"stop\":true,\"timings\":{\"cache_n\":3,\"prompt_n\":2}}\n\n"))
	f.Add([]byte("error: {\"code\":500,\"message\":\"x\",\"type\":\"server_error\"}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte(":comment\r\ndata:{}\r\n\r\n"))
	f.Add([]byte("data: {\"timings\":{\"cache_n\":null}}\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		err := sse.ReadEvents(strings.NewReader(string(stream)), func(ev sseLine) (bool, error) {
			if strings.Contains(ev.Field, ":") {
				t.Fatalf("field %q contains ':'", ev.Field)
			}
			c, cerr := parseCompletionEvent(ev.Value)
			if cerr == nil {
				_ = c.doneReason()
			}
			_, _ = parseChatEvent(ev.Value)
			_ = parseErrorBody(ev.Value)
			return false, nil
		})
		if err != nil && !strings.Contains(err.Error(), "token too long") {
			t.Fatalf("reading from memory failed: %v", err)
		}
	})
}

// FuzzCompletionStream runs the whole client against arbitrary /completion
// output: no panic, no hang, and every failure is an llm error type.
func FuzzCompletionStream(f *testing.F) {
	f.Add([]byte("data: {\"content\":\"Hi\",\"stop\":false}\n\ndata: {\"content\":\"\",\"stop\":true,\"stop_type\":\"eos\",\"tokens_evaluated\":5}\n\n"), 200)
	f.Add([]byte(`{"error":{"code":400,"message":"Invalid slot ID","type":"invalid_request_error"}}`), 400)
	f.Add([]byte("data: {\"content\":\"partial\"}\n\nerror: {\"code\":500,\"message\":\"boom\"}\n\n"), 200)
	f.Add([]byte("data: not json\n\n"), 200)
	f.Add([]byte(""), 503)
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		if status < 200 || status > 599 {
			status = 200
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/props":
				http.NotFound(w, r)
			case "/apply-template":
				_, _ = w.Write([]byte(`{"prompt":"templated"}`))
			default:
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(status)
				_, _ = w.Write(body)
			}
		}))
		defer srv.Close()
		c := newClient(t, srv.URL)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := c.Generate(ctx, llm.Request{Prompt: "p"}, func(string) {})
		if ctx.Err() != nil {
			t.Fatalf("hung on status %d body %q", status, body)
		}
		if err == nil {
			return
		}
		var se *llm.ServerError
		var le *llm.LoadingError
		if !errors.As(err, &se) && !errors.As(err, &le) {
			t.Fatalf("untyped error %v (%T)", err, err)
		}
	})
}

func BenchmarkGenerate2kTokens(b *testing.B) {
	text := strings.TrimSpace(strings.Repeat("token ", 2000))
	srv := fakellm.New(b, answer(text))
	c := newClient(b, srv.URL())
	req := llm.Request{Purpose: llm.PurposeStep, Prompt: strings.Repeat("prompt ", 1000), Options: llm.Options{Temperature: 0.1, TopP: 0.9}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		resp, err := c.Generate(context.Background(), req, func(string) { n++ })
		if err != nil || n != 2000 || resp.OutputTokens != 2000 {
			b.Fatalf("%v, %d deltas, %d tokens", err, n, resp.OutputTokens)
		}
	}
}
