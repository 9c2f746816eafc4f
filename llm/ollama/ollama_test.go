package ollama

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
)

var judgeSchema = json.RawMessage(`{"type":"object","properties":{"analysis":{"type":"string"},"status":{"type":"boolean"}},"required":["analysis","status"]}`)

func newClient(t *testing.T, url string, opts ...Option) *Client {
	t.Helper()
	c, err := New(url, fakellm.DefaultModel, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func seed(n int) *int { return &n }

func TestGenerateRequestAndStream(t *testing.T) {
	const step = "Thought: I need the date.\nAction: Search_Engine\nAction Input: \"treaty date\"\nObservation: invented"
	const judge = `{"analysis": "new facts", "status": true}`
	tests := []struct {
		name        string
		req         llm.Request
		reply       string
		wantText    string
		wantOptions map[string]any // exact "options" object sent
		wantFormat  string         // exact "format" sent; empty: absent
		wantReason  string
	}{
		{
			name: "step with stop",
			req: llm.Request{Purpose: llm.PurposeStep, Prompt: "Question: when?", Stop: []string{"Observation:"},
				Options: llm.Options{NumCtx: 16384, Temperature: 0.1, TopP: 0.9}},
			reply:       step,
			wantText:    "Thought: I need the date.\nAction: Search_Engine\nAction Input: \"treaty date\"\n",
			wantOptions: map[string]any{"num_ctx": 16384.0, "temperature": 0.1, "top_p": 0.9, "stop": []any{"Observation:"}},
			wantReason:  "stop",
		},
		{
			name: "judge with schema, seed and num_predict",
			req: llm.Request{Purpose: llm.PurposeJudge, Prompt: "Judge: useful?", Schema: judgeSchema,
				Options: llm.Options{NumCtx: 4096, Temperature: 0, TopP: 1, Seed: seed(7), NumPredict: 200}},
			reply:       judge,
			wantText:    judge,
			wantOptions: map[string]any{"num_ctx": 4096.0, "temperature": 0.0, "top_p": 1.0, "seed": 7.0, "num_predict": 200.0},
			wantFormat:  string(judgeSchema),
			wantReason:  "stop",
		},
		{
			name:        "zero num_ctx gets the default, num_predict cuts",
			req:         llm.Request{Purpose: llm.PurposeAnswer, Prompt: "Answer.", Options: llm.Options{TopP: 0.9, NumPredict: 2}},
			reply:       "one two three four",
			wantText:    "one two",
			wantOptions: map[string]any{"num_ctx": float64(DefaultNumCtx), "temperature": 0.0, "top_p": 0.9, "num_predict": 2.0},
			wantReason:  "length",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: tt.reply}}}})
			c := newClient(t, srv.URL())
			var deltas []string
			resp, err := c.Generate(context.Background(), tt.req, func(d string) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != tt.wantText || strings.Join(deltas, "") != tt.wantText {
				t.Errorf("text %q, deltas %q; want %q", resp.Text, deltas, tt.wantText)
			}
			if len(deltas) < 2 {
				t.Errorf("got %d deltas, want a word-by-word stream", len(deltas))
			}
			if resp.PromptTokens <= 0 || resp.OutputTokens != len(deltas) || resp.Model != fakellm.DefaultModel || resp.DoneReason != tt.wantReason {
				t.Errorf("response %+v", resp)
			}

			gens := srv.Generations()
			if len(gens) != 1 {
				t.Fatalf("%d generation requests", len(gens))
			}
			body := gens[0].BodyMap()
			if !reflect.DeepEqual(body["options"], tt.wantOptions) {
				t.Errorf("options sent %v, want %v", body["options"], tt.wantOptions)
			}
			if got, _ := json.Marshal(body["format"]); tt.wantFormat == "" && body["format"] != nil ||
				tt.wantFormat != "" && !jsonEqual(got, []byte(tt.wantFormat)) {
				t.Errorf("format sent %s, want %q", got, tt.wantFormat)
			}
			msgs, _ := body["messages"].([]any)
			if len(msgs) != 1 || msgs[0].(map[string]any)["role"] != "user" || msgs[0].(map[string]any)["content"] != tt.req.Prompt {
				t.Errorf("messages sent %v", body["messages"])
			}
			if body["stream"] != true || body["model"] != fakellm.DefaultModel {
				t.Errorf("stream/model sent: %v %v", body["stream"], body["model"])
			}
		})
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func TestGenerateCachedTokens(t *testing.T) {
	srv := fakellm.New(t, &fakellm.Script{Steps: []string{"Thought: first", "Thought: second"}})
	c := newClient(t, srv.URL())
	prompt := strings.Repeat("Tool description and format rules. ", 40)
	first, err := c.Generate(context.Background(), llm.Request{Prompt: prompt}, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Generate(context.Background(), llm.Request{Prompt: prompt + first.Text + "\nObservation: …"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.CachedPromptTokens != 0 || second.CachedPromptTokens < len(prompt)/4-1 || second.CachedPromptTokens >= second.PromptTokens {
		t.Errorf("cached tokens: first %d, second %d of %d", first.CachedPromptTokens, second.CachedPromptTokens, second.PromptTokens)
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name     string
		reply    fakellm.Reply
		opts     []fakellm.Option
		model    string
		check    func(error) bool
		wantText string
	}{
		{
			name:  "model not found",
			model: "missing-model",
			check: func(err error) bool {
				var me *llm.ModelNotFoundError
				return errors.Is(err, llm.ErrModelNotFound) && errors.As(err, &me) && me.Model == "missing-model"
			},
		},
		{
			name:  "HTTP 500",
			reply: fakellm.Reply{Status: 500, Error: "runner crashed"},
			check: func(err error) bool {
				var se *llm.ServerError
				return errors.As(err, &se) && se.Status == 500 && strings.Contains(se.Message, "runner crashed")
			},
		},
		{
			name:     "dies mid-stream",
			reply:    fakellm.Reply{Text: "alpha beta gamma delta", DieAfter: 2},
			wantText: "alpha beta",
			check:    func(err error) bool { var se *llm.ServerError; return errors.As(err, &se) },
		},
		{
			name:     "error inside the stream",
			reply:    fakellm.Reply{Text: "alpha beta", Error: "out of memory"},
			wantText: "alpha beta",
			check: func(err error) bool {
				var se *llm.ServerError
				return errors.As(err, &se) && strings.Contains(se.Message, "out of memory")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: tt.reply}}}, tt.opts...)
			model := tt.model
			if model == "" {
				model = fakellm.DefaultModel
			}
			c, err := New(srv.URL(), model)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p", Options: llm.Options{NumCtx: 2048}}, nil)
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
	for _, err := range []error{genErr, checkErr} {
		var ue *llm.UnreachableError
		if !errors.Is(err, llm.ErrUnreachable) || !errors.As(err, &ue) || ue.Backend != "ollama" {
			t.Errorf("error %v (%T), want *llm.UnreachableError", err, err)
		}
	}
	// A hang guard, not a speed measurement: a refused connection must not
	// wait for any timeout.
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: strings.Repeat("word ", 500)}}}},
		fakellm.ChunkDelay(20*time.Millisecond))
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
		{"idle between chunks", []fakellm.Option{fakellm.ChunkDelay(400 * time.Millisecond)},
			[]Option{llm.WithIdleTimeout(100 * time.Millisecond), llm.WithFirstByteTimeout(5 * time.Second)}, "a", "stalled"},
		{"no first chunk", []fakellm.Option{fakellm.Latency(time.Minute)},
			[]Option{llm.WithFirstByteTimeout(100 * time.Millisecond)}, "", "no answer within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "a b c"}}}}, tt.srvOpts...)
			c := newClient(t, srv.URL(), tt.cliOpts...)
			resp, err := c.Generate(context.Background(), llm.Request{Prompt: "p"}, nil)
			var se *llm.ServerError
			if !errors.As(err, &se) || !strings.Contains(se.Message, tt.wantMsg) {
				t.Fatalf("error %v, want a ServerError saying %q", err, tt.wantMsg)
			}
			if resp.Text != tt.wantText {
				t.Errorf("text %q", resp.Text)
			}
		})
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
	srv := fakellm.New(t, nil, fakellm.Models("qwen3:8b", "llama3.2"))
	tests := []struct {
		name  string
		url   string
		model string
		opts  []Option
		check func(error) bool
	}{
		{"present", srv.URL(), "qwen3:8b", nil, func(err error) bool { return err == nil }},
		{"implicit latest", srv.URL(), "llama3.2:latest", nil, func(err error) bool { return err == nil }},
		{"missing", srv.URL(), "mistral", nil, func(err error) bool { return errors.Is(err, llm.ErrModelNotFound) }},
		{"no answer", silentServer(t), "qwen3:8b", []Option{llm.WithCheckTimeout(200 * time.Millisecond)},
			func(err error) bool {
				return errors.Is(err, llm.ErrTimeout) && !strings.Contains(err.Error(), "start it") && strings.Contains(err.Error(), "--llm-timeout")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.url, tt.model, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Check(context.Background()); !tt.check(err) {
				t.Errorf("Check = %v (%T)", err, err)
			}
		})
	}
	var shows int
	for _, r := range srv.Requests() {
		if r.Endpoint == "/api/show" {
			shows++
		}
	}
	if shows != 3 {
		t.Errorf("%d /api/show requests, want 3", shows)
	}
}

func TestDigest(t *testing.T) {
	srv := fakellm.New(t, nil, fakellm.Models("qwen3:8b", "llama3.2"))
	tests := []struct {
		model   string
		want    string
		wantErr error
	}{
		{"qwen3:8b", fakellm.ModelDigest("qwen3:8b"), nil},
		{"llama3.2", fakellm.ModelDigest("llama3.2"), nil},
		{"mistral", "", llm.ErrModelNotFound},
	}
	for _, tt := range tests {
		c, err := New(srv.URL(), tt.model)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Digest(context.Background())
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("Digest(%s) = %q, %v; want %q, %v", tt.model, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		url, model, wantURL string
		wantErr             bool
	}{
		{"http://127.0.0.1:11434", "m", "http://127.0.0.1:11434", false},
		{"127.0.0.1", "m", "http://127.0.0.1:11434", false},
		{"localhost:9999/", "m", "http://localhost:9999", false},
		{"http://127.0.0.1:11434", " ", "", true},
		{"ftp://x", "m", "", true},
		{"", "m", "", true},
	}
	for _, tt := range tests {
		c, err := New(tt.url, tt.model)
		if (err != nil) != tt.wantErr {
			t.Errorf("New(%q, %q) error %v", tt.url, tt.model, err)
			continue
		}
		if err == nil && c.URL() != tt.wantURL {
			t.Errorf("New(%q).URL() = %q, want %q", tt.url, c.URL(), tt.wantURL)
		}
	}
}

// FuzzChatStream feeds arbitrary server output to Generate: it must never
// panic, and every failure must be one of the llm error types.
func FuzzChatStream(f *testing.F) {
	f.Add([]byte(`{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"hi"},"done":false}
{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":1}
`), 200)
	f.Add([]byte(`{"error":"model 'm' not found"}`), 404)
	f.Add([]byte(`{"message":{"content":"partial"},"done":false}`+"\n"+`{"error":"boom"}`), 200)
	f.Add([]byte("not json at all\n"), 200)
	f.Add([]byte(`{"done":true,"prompt_eval_cached_count":-5}`), 200)
	f.Add([]byte(""), 500)
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		if status < 200 || status > 599 {
			status = 200
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(status)
			_, _ = w.Write(body)
		}))
		defer srv.Close()
		c, err := New(srv.URL, "m")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = c.Generate(ctx, llm.Request{Prompt: "p"}, func(string) {})
		if ctx.Err() != nil {
			t.Fatalf("hung on status %d body %q", status, body)
		}
		if err == nil {
			return
		}
		var se *llm.ServerError
		var me *llm.ModelNotFoundError
		var ue *llm.UnreachableError
		var we *llm.WrongServerError
		if !errors.As(err, &se) && !errors.As(err, &me) && !errors.As(err, &ue) && !errors.As(err, &we) {
			t.Fatalf("untyped error %v (%T)", err, err)
		}
	})
}

func BenchmarkGenerate2kTokens(b *testing.B) {
	text := strings.TrimSpace(strings.Repeat("token ", 2000))
	srv := fakellm.New(b, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: text}}}})
	c, err := New(srv.URL(), fakellm.DefaultModel)
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Prompt: strings.Repeat("prompt ", 1000), Options: llm.Options{NumCtx: 16384, Temperature: 0.1, TopP: 0.9}}
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
