// Package fakellm is the project's fake LLM server. It speaks the real HTTP
// protocols of Ollama (/api/chat streaming NDJSON, /api/show, /api/tags,
// /api/version) and of llama.cpp's llama-server (/completion SSE,
// /apply-template, /health, /props, /v1/models, /v1/chat/completions SSE),
// or with the OpenAI option those of an OpenAI-compatible server such as
// vLLM (/v1/models, /v1/chat/completions; see openai.go),
// closely enough that production clients cannot tell it from the real thing,
// while a Responder decides what the "model" says.
//
// Like the real servers it streams word by word, cuts the output at the
// first stop sequence (unless IgnoreStop), honours num_predict/n_predict,
// reports token counts (prompt ≈ runes/4, or per script as a real tokenizer
// with CountByScript) and prompt-cache hits (the common
// prefix with the previous prompt on the same slot), and records every
// request for assertions. It can also be slow, fail, crash mid-stream or
// pretend to load.
package fakellm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultModel is the model the server knows unless Models says otherwise.
const DefaultModel = "fake-model"

// Recorded is one request as received.
type Recorded struct {
	Method   string `json:"method"`
	Endpoint string `json:"endpoint"` // the request path
	// Body is the raw request body, for assertions on the exact JSON sent.
	Body []byte `json:"-"`
	// Status is the HTTP status answered (0 while the answer is under way).
	Status int `json:"status"`
	// Generation is true for /api/chat, /completion and /v1/chat/completions;
	// the fields below are filled for those.
	Generation bool            `json:"generation"`
	Model      string          `json:"model,omitempty"`
	Prompt     string          `json:"prompt,omitempty"`
	Stop       []string        `json:"stop,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"`
	Options    map[string]any  `json:"options,omitempty"`
	Slot       int             `json:"slot"`
	Stream     bool            `json:"stream"`
	// KeptTokens is set when the server cut the prompt (TruncateLikeOllama):
	// the tokens it kept of PromptTokens received; Prompt stays as sent.
	KeptTokens   int `json:"kept_tokens,omitempty"`
	PromptTokens int `json:"prompt_tokens,omitempty"`
}

// MarshalJSON writes the body as JSON when it is JSON, else as a string.
func (r Recorded) MarshalJSON() ([]byte, error) {
	type plain Recorded
	var body any = string(r.Body)
	if json.Valid(r.Body) {
		body = json.RawMessage(r.Body)
	}
	return json.Marshal(struct {
		plain
		Body any `json:"body"`
	}{plain(r), body})
}

// BodyMap decodes the body as a JSON object (nil when it is not one).
func (r Recorded) BodyMap() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// Server is a running fake. Close stops it.
type Server struct {
	t    testing.TB
	resp Responder
	cfg  config

	ln  net.Listener
	srv *http.Server
	url string

	mu          sync.Mutex
	records     []Recorded
	calls       int
	failed      int
	loading     bool
	slots       []slotState         // llama.cpp slots
	ollamaCache map[string][]string // Ollama: per model, the recent prompts (most recent last)
	runnerCtx   map[string]int      // Ollama: per model, its runner's context (truncate.go)
	conns       map[net.Conn]struct{}
	closeOnce   sync.Once
	// See embed.go.
	embedCalls, embedTexts, embedFailed int
}

type slotState struct {
	cached   string // prompt + generated text held in the slot's cache
	lastUsed int
}

type config struct {
	addr          string
	models        []string
	latency       time.Duration
	chunkDelay    time.Duration
	ignoreStop    bool
	slots         int
	hangBadSlot   bool
	without       map[string]bool
	serverErrors  int
	loading       bool
	version       string
	logf          func(format string, args ...any)
	ollamaSlots   int
	contextLength int
	earlyHeaders  bool
	// See limits.go.
	enforceContext bool
	legacyProps    bool
	// See openai.go.
	openai       bool
	refuseSchema bool
	refuseFormat bool
	apiKey       string
	// See servers.go.
	samplerRefusal bool
	ollamaOnly     bool
	killAfter      int
	// See truncate.go.
	truncate       bool
	ignoreTruncate bool
	tokenRatio     float64
	// See tokens.go.
	byScript bool
	dense    float64
	// See embed.go.
	embedModels []string
	embedDims   int
	embedDelay  time.Duration
	embedErrors int
	poolingNone bool
	embedBatch  int
}

// Option configures a Server.
type Option func(*config)

// Models sets the models the server has (default "fake-model"). The first
// one is llama.cpp's alias.
func Models(names ...string) Option {
	return func(c *config) { c.models = append([]string(nil), names...) }
}

// Latency delays the first chunk of every generation (model load and prompt
// evaluation).
func Latency(d time.Duration) Option { return func(c *config) { c.latency = d } }

// ChunkDelay is the default pause before each streamed chunk.
func ChunkDelay(d time.Duration) Option { return func(c *config) { c.chunkDelay = d } }

// IgnoreStop emulates servers that do not honour stop sequences.
func IgnoreStop() Option { return func(c *config) { c.ignoreStop = true } }

// Slots sets llama.cpp's number of parallel slots (default 2, like
// `llama-server -np 2`).
func Slots(n int) Option { return func(c *config) { c.slots = n } }

// HangOnUnknownSlot makes a llama.cpp request for a slot that does not exist
// wait until the client gives up, as upstream llama-server does (it defers
// the task forever). By default the fake answers 400 "Invalid slot ID".
func HangOnUnknownSlot() Option { return func(c *config) { c.hangBadSlot = true } }

// Without makes the server answer 404 on these paths, as an older server
// or a proxy that lacks them would (e.g. "/apply-template", "/props").
func Without(paths ...string) Option {
	return func(c *config) {
		for _, p := range paths {
			c.without[p] = true
		}
	}
}

// EarlyHeaders makes llama.cpp streams send their headers at once, before
// the Latency wait, as older llama-server versions do; by default headers
// go out with the first event.
func EarlyHeaders() Option { return func(c *config) { c.earlyHeaders = true } }

// ServerErrors makes the first n generation requests fail with HTTP 500.
func ServerErrors(n int) Option { return func(c *config) { c.serverErrors = n } }

// Loading starts the server in the "loading model" state (llama.cpp /health
// answers 503, generation requests too) until SetLoading(false).
func Loading() Option { return func(c *config) { c.loading = true } }

// Addr sets the listen address (default "127.0.0.1:0", a free port).
func Addr(addr string) Option { return func(c *config) { c.addr = addr } }

// Logf receives problems when there is no testing.TB (default: log.Printf).
func Logf(f func(format string, args ...any)) Option { return func(c *config) { c.logf = f } }

// New starts a fake on 127.0.0.1 with a free port. With t, it is closed when
// the test ends and responder problems are recorded as test failures; t may
// be nil (then a listen failure panics).
func New(t testing.TB, r Responder, opts ...Option) *Server {
	if t != nil {
		t.Helper()
	}
	s, err := start(t, r, opts)
	if err != nil {
		if t != nil {
			t.Fatalf("fakellm: %v", err)
		}
		panic("fakellm: " + err.Error())
	}
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// Start runs a fake without a testing.TB (for the fakellm command).
func Start(r Responder, opts ...Option) (*Server, error) { return start(nil, r, opts) }

func start(t testing.TB, r Responder, opts []Option) (*Server, error) {
	cfg := config{
		addr:          "127.0.0.1:0",
		models:        []string{DefaultModel},
		slots:         2,
		without:       map[string]bool{},
		version:       "0.34.4",
		logf:          log.Printf,
		ollamaSlots:   2,
		contextLength: 32768,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.models) == 0 && !cfg.ollamaOnly {
		return nil, errors.New("no models configured (only AsOllama serves none)")
	}
	if r == nil {
		r = Rules{}
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, err
	}
	s := &Server{
		t:           t,
		resp:        r,
		cfg:         cfg,
		ln:          ln,
		url:         "http://" + ln.Addr().String(),
		loading:     cfg.loading,
		slots:       make([]slotState, max(cfg.slots, 0)),
		ollamaCache: map[string][]string{},
		conns:       map[net.Conn]struct{}{},
	}
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0), ConnState: s.trackConn}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the server's base address, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.url }

// Close stops the server and drops open connections at once.
func (s *Server) Close() {
	s.closeOnce.Do(func() { _ = s.srv.Close() })
}

// SetLoading switches the "loading model" state.
func (s *Server) SetLoading(v bool) {
	s.mu.Lock()
	s.loading = v
	s.mu.Unlock()
}

// Requests returns a copy of every request received so far, in arrival
// order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.records...)
}

// Generations returns the recorded generation requests only.
func (s *Server) Generations() []Recorded {
	var out []Recorded
	for _, r := range s.Requests() {
		if r.Generation {
			out = append(out, r)
		}
	}
	return out
}

// ClosedURL returns an http:// address on 127.0.0.1 where nothing listens,
// for unreachable-server tests.
func ClosedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakellm: %v", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, path string, h func(http.ResponseWriter, *http.Request, int)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			idx := s.record(r)
			sw := &statusWriter{ResponseWriter: w}
			defer func() { s.setStatus(idx, sw.status()) }()
			if s.cfg.without[path] {
				http.NotFound(sw, r)
				return
			}
			h(sw, r, idx)
		})
	}
	if s.cfg.openai {
		s.openaiRoutes(handle)
		handle("/", "*", func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) })
		return mux
	}
	if s.cfg.ollamaOnly {
		s.ollamaRoutes(handle)
		handle("/", "*", func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) })
		return mux
	}
	// Ollama.
	handle("POST /api/chat", "/api/chat", s.ollamaChat)
	handle("POST /api/show", "/api/show", s.ollamaShow)
	handle("GET /api/tags", "/api/tags", s.ollamaTags)
	handle("GET /api/version", "/api/version", s.ollamaVersion)
	handle("GET /api/ps", "/api/ps", s.ollamaPS)
	handle("POST /api/embed", "/api/embed", s.ollamaEmbed)
	handle("GET /{$}", "/", s.ollamaRoot)
	// llama.cpp.
	handle("GET /health", "/health", s.llamaHealth)
	handle("GET /v1/health", "/health", s.llamaHealth)
	handle("GET /props", "/props", s.llamaAuth(s.llamaProps))
	handle("GET /v1/models", "/v1/models", s.llamaModels)
	handle("GET /models", "/v1/models", s.llamaModels)
	handle("POST /apply-template", "/apply-template", s.llamaAuth(s.llamaApplyTemplate))
	handle("POST /tokenize", "/tokenize", s.llamaAuth(s.llamaTokenize))
	handle("POST /completion", "/completion", s.llamaAuth(s.llamaCompletion))
	handle("POST /completions", "/completion", s.llamaAuth(s.llamaCompletion))
	handle("POST /v1/chat/completions", "/v1/chat/completions", s.llamaAuth(s.llamaChat))
	handle("POST /chat/completions", "/v1/chat/completions", s.llamaAuth(s.llamaChat))
	handle("POST /v1/embeddings", "/v1/embeddings", s.llamaAuth(s.v1Embeddings))
	handle("POST /embeddings", "/v1/embeddings", s.llamaAuth(s.v1Embeddings))
	handle("/", "*", func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) })
	return mux
}

// record stores the request with its body (restored for the handler).
func (s *Server) record(r *http.Request) int {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, Recorded{Method: r.Method, Endpoint: r.URL.Path, Body: body, Slot: -1})
	return len(s.records) - 1
}

func (s *Server) setStatus(idx, status int) {
	s.mu.Lock()
	s.records[idx].Status = status
	s.mu.Unlock()
}

// beginCall fills the record of a generation request, asks the responder
// and reports its problem, if any.
func (s *Server) beginCall(idx int, c Call, stream bool) (Call, Reply) {
	s.recordCall(idx, c, stream)
	s.mu.Lock()
	c.Index = s.calls
	s.calls++
	fail := s.failed < s.cfg.serverErrors
	if fail {
		s.failed++
	}
	s.mu.Unlock()
	if fail {
		return c, Reply{Status: http.StatusInternalServerError, Error: "fakellm: simulated server error"}
	}
	reply := s.resp.Respond(c)
	if reply.Problem != "" {
		s.problem(reply.Problem)
	}
	return c, reply
}

// recordCall fills the record of a generation request.
func (s *Server) recordCall(idx int, c Call, stream bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := &s.records[idx]
	rec.Generation = true
	rec.Model, rec.Prompt, rec.Stop, rec.Schema = c.Model, c.Prompt, c.Stop, c.Schema
	rec.Options, rec.Slot, rec.Stream = c.Options, c.Slot, stream
	if c.cut != nil {
		rec.Prompt, rec.KeptTokens, rec.PromptTokens = c.cut.received, c.cut.kept, c.cut.tokens
	}
}

func (s *Server) problem(msg string) {
	if s.t != nil {
		s.t.Errorf("fakellm: %s", msg)
		return
	}
	s.cfg.logf("fakellm: %s", msg)
}

func (s *Server) isLoading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loading
}

// generation is a reply prepared for streaming: the text cut as the real
// server would cut it, split into chunks, with the token accounting.
type generation struct {
	pieces       []string
	text         string
	stopWord     string
	limited      bool // n_predict / num_predict reached
	promptTokens int
	cachedTokens int
	delay        time.Duration
	dieAfter     int
	inbandError  string
	// endless streams pieces over and over, ignoring the generation limit,
	// until the client goes away.
	endless bool
	// killAfter > 0 kills the server (kill) after that many chunks.
	killAfter int
	kill      func()
}

func (s *Server) prepare(reply Reply, stop []string, numPredict int) generation {
	text := reply.Text
	g := generation{dieAfter: reply.DieAfter, inbandError: reply.Error, delay: reply.ChunkDelay}
	if g.delay == 0 {
		g.delay = s.cfg.chunkDelay
	}
	if !s.cfg.ignoreStop {
		text, g.stopWord = CutAtStop(text, stop)
	}
	g.pieces = SplitWords(text)
	g.killAfter, g.kill = s.cfg.killAfter, s.Kill
	if reply.Runaway {
		limit := numPredict
		if limit <= 0 {
			limit = s.cfg.contextLength
		}
		g.pieces, g.limited, g.stopWord = runaway(g.pieces, limit), true, ""
	} else if reply.Endless {
		g.endless = true
		if len(g.pieces) == 0 {
			g.pieces = []string{"word "}
		}
	} else if numPredict > 0 && len(g.pieces) > numPredict {
		g.pieces = g.pieces[:numPredict]
		g.limited = true
		g.stopWord = ""
	}
	g.text = strings.Join(g.pieces, "")
	return g
}

// statusWriter remembers the status written, keeping Flush available.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) status() int { return w.code }

// chatTemplate renders messages the way a ChatML model's template does; the
// fake uses it for /apply-template and to account tokens of chat requests.
func chatTemplate(msgs []chatMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// promptOf joins the text of the messages, which is what rules match on.
func promptOf(msgs []chatMessage) string {
	parts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		parts = append(parts, m.Content)
	}
	return strings.Join(parts, "\n\n")
}

// stringList reads a JSON value that is a string or a list of strings.
func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func intValue(v any, def int) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return def
}
