package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
)

// scriptLLM answers step calls and judge calls from two queues and records
// every request. It streams word by word like a server would, and cuts its
// reply at the request's stop sequences unless ignoreStop is set (servers
// that do not honour them).
type scriptLLM struct {
	t          *testing.T
	mu         sync.Mutex
	steps      []reply
	judges     []reply
	reqs       []llm.Request
	ignoreStop bool
}

type reply struct {
	text  string
	err   error
	block bool // wait for cancellation
}

func (s *scriptLLM) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	q := &s.steps
	if req.Purpose == llm.PurposeJudge {
		q = &s.judges
	}
	if len(*q) == 0 {
		s.mu.Unlock()
		s.t.Errorf("unexpected %s call; prompt tail: %q", req.Purpose, tail(req.Prompt, 200))
		return llm.Response{}, &llm.ServerError{Backend: "script", Message: "script exhausted"}
	}
	r := (*q)[0]
	*q = (*q)[1:]
	s.mu.Unlock()
	if r.block {
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}
	if r.err != nil {
		return llm.Response{}, r.err
	}
	text := r.text
	for _, stop := range req.Stop {
		if i := strings.Index(text, stop); i >= 0 && !s.ignoreStop {
			text = text[:i]
		}
	}
	if onToken != nil {
		for _, w := range strings.SplitAfter(text, " ") {
			onToken(w)
		}
	}
	return llm.Response{Text: text, PromptTokens: len(req.Prompt) / 4, OutputTokens: len(text) / 4, Model: "script"}, nil
}

func (s *scriptLLM) prompts(p llm.Purpose) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.reqs {
		if r.Purpose == p {
			out = append(out, r.Prompt)
		}
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// memSource answers queries from a map (by substring of the query) or a
// function; it can fail with a fixed error.
type memSource struct {
	name    string
	kind    sources.Kind
	answers map[string][]Document
	err     error
	mu      sync.Mutex
	queries []string
}

func (m *memSource) Name() string       { return m.name }
func (m *memSource) Kind() sources.Kind { return m.kind }
func (m *memSource) Search(ctx context.Context, q string, k int) ([]Document, error) {
	m.mu.Lock()
	m.queries = append(m.queries, q)
	m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	for key, docs := range m.answers {
		if strings.Contains(strings.ToLower(q), strings.ToLower(key)) {
			return docs, nil
		}
	}
	return nil, nil
}

func doc(src, id, title, text string) Document {
	return Document{ID: id, Title: title, Text: text, Source: src, Score: 1}
}

func judgeJSON(status bool, analysis string) reply {
	return reply{text: fmt.Sprintf(`{"analysis": %q, "status": %v}`, analysis, status)}
}

type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) emit(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// types lists the non-token event types in order.
func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Type() != EventToken {
			out = append(out, e.Type())
		}
	}
	return out
}

// payloads returns the payloads of type P the run emitted, in order.
func payloads[P Payload](r *recorder) []P {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []P
	for _, e := range r.events {
		if p, ok := e.Payload.(P); ok {
			out = append(out, p)
		}
	}
	return out
}

// of returns the events whose payload is a P, in order.
func of[P Payload](r *recorder) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if _, ok := e.Payload.(P); ok {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) final(t *testing.T) Final {
	t.Helper()
	f := payloads[Final](r)
	if len(f) != 1 {
		t.Fatalf("want exactly one final event, got %d: %v", len(f), r.types())
	}
	return f[0]
}

type harness struct {
	llm   *scriptLLM
	local *memSource
	web   *memSource
	eng   *Engine
	rec   *recorder
}

func newHarness(t *testing.T, extra ...Source) *harness {
	h := &harness{
		llm:   &scriptLLM{t: t},
		local: &memSource{name: "local:wiki", kind: sources.KindLocal, answers: map[string][]Document{}},
		web:   &memSource{name: "web:duckduckgo", kind: sources.KindWeb, answers: map[string][]Document{}},
		rec:   &recorder{},
	}
	srcs := append([]Source{h.local}, extra...)
	srcs = append(srcs, h.web)
	clock := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	eng, err := New(Config{LLM: h.llm, Sources: srcs, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Millisecond)
		return clock
	}})
	if err != nil {
		t.Fatal(err)
	}
	h.eng = eng
	return h
}

func (h *harness) run(t *testing.T, q string, mod func(*Settings)) (Result, error) {
	t.Helper()
	s := DefaultSettings()
	s.Model = "script"
	if mod != nil {
		mod(&s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.eng.Run(ctx, Request{SessionID: "s1", Question: q, Settings: s, Emit: h.rec.emit})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
