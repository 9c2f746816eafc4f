package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
)

// cannedLLM answers every call, judge or not, from one queue of responses
// and errors, and records the requests. It does not cut at stop sequences.
type cannedLLM struct {
	t       *testing.T
	mu      sync.Mutex
	replies []canned
	reqs    []llm.Request
}

type canned struct {
	resp llm.Response
	err  error
}

func (c *cannedLLM) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, req)
	if len(c.replies) == 0 {
		c.t.Errorf("unexpected %s call", req.Purpose)
		return llm.Response{}, &llm.ServerError{Backend: "canned", Status: 418, Message: "exhausted"}
	}
	r := c.replies[0]
	c.replies = c.replies[1:]
	return r.resp, r.err
}

func (c *cannedLLM) requests() []llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]llm.Request(nil), c.reqs...)
}

func runCanned(t *testing.T, replies []canned, mod func(*Settings)) (*cannedLLM, *recorder, Result, error) {
	t.Helper()
	m := &cannedLLM{t: t, replies: replies}
	local := &memSource{name: "local:wiki", kind: sources.KindLocal, answers: map[string][]Document{
		"": {doc("local:wiki", "a1", "A", "alpha")}}}
	web := &memSource{name: "web:duckduckgo", kind: sources.KindWeb, answers: map[string][]Document{}}
	eng, err := New(Config{LLM: m, Sources: []Source{local, web}})
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.Model, s.Web = "canned", WebNever
	if mod != nil {
		mod(&s)
	}
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := eng.Run(ctx, Request{SessionID: "s", Question: "Q?", Settings: s, Emit: rec.emit})
	return m, rec, res, err
}

func text(s string) canned { return canned{resp: llm.Response{Text: s, DoneReason: "stop"}} }

func TestEveryCallCarriesAGenerationLimit(t *testing.T) {
	tests := []struct {
		name        string
		mod         func(*Settings)
		step, judge int
	}{
		{"defaults", nil, 1024, 512},
		{"configured", func(s *Settings) { s.MaxOutputTokens = 300 }, 300, 300},
		{"a quarter of the server's slot", func(s *Settings) { s.ServerCtx = 1200 }, 300, 300},
		{"a quarter of num_ctx", func(s *Settings) { s.NumCtx = 2048 }, 512, 512},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, _, err := runCanned(t, []canned{
				text("Thought: look.\nAction: Search_Engine\nAction Input: alpha"),
				text(`{"analysis": "new", "status": true}`),
				text("Final Answer: alpha\nSelf-Evaluation: CORRECT"),
			}, func(s *Settings) {
				s.Web = WebAuto // the judge runs only when there is somewhere to switch to
				if tt.mod != nil {
					tt.mod(s)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			judged := false
			for _, r := range m.requests() {
				judged = judged || r.Purpose == llm.PurposeJudge
				want := tt.step
				if r.Purpose == llm.PurposeJudge {
					want = tt.judge
				}
				if r.Options.NumPredict != want {
					t.Errorf("%s call: num_predict %d, want %d", r.Purpose, r.Options.NumPredict, want)
				}
			}
			if !judged {
				t.Error("no judge call")
			}
		})
	}
}

func TestLengthStopGoesToForcedAnswer(t *testing.T) {
	runaway := strings.Repeat("I keep thinking and thinking ", 200)
	m, rec, res, err := runCanned(t, []canned{
		{resp: llm.Response{Text: runaway, DoneReason: llm.DoneLength, CutByClient: true, OutputTokens: 1024}},
		text("alpha"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.requests()
	if len(reqs) != 2 || reqs[1].Purpose != llm.PurposeForced {
		t.Fatalf("calls: %d, last %v; want a step, then the forced answer without a corrective retry", len(reqs), reqs[len(reqs)-1].Purpose)
	}
	if !strings.Contains(reqs[1].Prompt, "I keep thinking and thinking") {
		t.Error("the forced answer's prompt lacks the truncated text")
	}
	var notice *Notice
	for _, e := range payloads[Notice](rec) {
		if strings.Contains(e.Message, "generation limit") {
			notice = &e
		}
	}
	if notice == nil || notice.Fatal || !strings.Contains(notice.Message, "1024 tokens") || !strings.Contains(notice.Message, "closed the stream") {
		t.Errorf("error events %+v", payloads[Notice](rec))
	}
	if !res.Forced || res.Answer != "alpha" || res.Counts.OutputTokens != 1024 {
		t.Errorf("result %+v", res)
	}
}

func TestDeterministicAnswersAreNotRetried(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		calls int
	}{
		{"context exceeded", &llm.ContextExceededError{Backend: "llamacpp", PromptTokens: 5000, NCtx: 4096}, 1},
		{"sampler initialisation (400)", &llm.ServerError{Backend: "llamacpp", Status: 400, Message: "Failed to initialize samplers"}, 1},
		{"a 5xx is retried once", &llm.ServerError{Backend: "llamacpp", Status: 500, Message: "boom"}, 2},
		{"a broken stream is retried once", &llm.ServerError{Backend: "ollama", Message: "the connection failed"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, rec, _, err := runCanned(t, []canned{{err: tt.err}, {err: tt.err}}, nil)
			var fe *FatalError
			if !errors.As(err, &fe) || !errors.Is(err, tt.err) {
				t.Fatalf("err = %v", err)
			}
			if n := len(m.requests()); n != tt.calls {
				t.Errorf("%d calls, want %d", n, tt.calls)
			}
			errs := payloads[Notice](rec)
			if last := errs[len(errs)-1]; !last.Fatal || last.Message != tt.err.Error() {
				t.Errorf("last error event %+v", last)
			}
		})
	}
}

func TestContextWarningUsesTheServersFigure(t *testing.T) {
	_, rec, _, err := runCanned(t, []canned{
		{resp: llm.Response{Text: "Final Answer: alpha\nSelf-Evaluation: CORRECT", PromptTokens: 3900}},
	}, func(s *Settings) { s.ServerCtx = 4096 })
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range payloads[Notice](rec) {
		if strings.Contains(e.Message, "3900 of 4096") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning against the server's 4096-token slot: %+v", payloads[Notice](rec))
	}
	sess := payloads[SessionStart](rec)
	if len(sess) != 1 || sess[0].Config == nil || sess[0].Config.ServerCtx != 4096 {
		t.Errorf("session config does not record the server's context: %+v", sess)
	}
}
