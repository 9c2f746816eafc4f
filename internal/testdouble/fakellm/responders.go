package fakellm

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Kind tells reasoning calls from judge calls.
type Kind string

const (
	KindStep  Kind = "step"  // no structured output asked for
	KindJudge Kind = "judge" // a JSON schema (or "json") was asked for
)

// Call is one generation request as the server understood it.
type Call struct {
	// Endpoint is the request path: "/api/chat", "/completion" or
	// "/v1/chat/completions".
	Endpoint string
	Model    string
	// Prompt is the prompt as received: the message text of a chat request,
	// the raw (already templated) prompt of /completion.
	Prompt string
	Stop   []string
	// Schema is Ollama's "format" or llama.cpp's "json_schema" /
	// "response_format" schema; nil when no structured output was asked for.
	Schema json.RawMessage
	// Options are Ollama's "options" object, or for llama.cpp every field of
	// the body but the prompt and messages.
	Options map[string]any
	// Slot is llama.cpp's id_slot as sent (-1 when absent, and for Ollama).
	Slot int
	// Index counts the generation calls this server has answered, from 0.
	Index int
	// cut is set when the server cut the prompt (TruncateLikeOllama):
	// Prompt is then what the model saw.
	cut *promptCut
}

// Cut reports whether the server cut the prompt before the model saw it
// (TruncateLikeOllama), and the tokens it kept.
func (c Call) Cut() (kept int, ok bool) {
	if c.cut == nil {
		return 0, false
	}
	return c.cut.kept, true
}

// Kind is KindJudge when structured output was asked for.
func (c Call) Kind() Kind {
	if len(c.Schema) > 0 {
		return KindJudge
	}
	return KindStep
}

// Reply is what the fake answers to one call.
type Reply struct {
	Text string
	// ChunkDelay is the pause before each streamed chunk; zero uses the
	// server's default (option ChunkDelay).
	ChunkDelay time.Duration
	// DieAfter > 0 drops the connection after that many chunks, before the
	// final one, as a crashed server would.
	DieAfter int
	// Endless streams Text over and over, ignoring num_predict/n_predict
	// and max_tokens, until the client goes away: a runaway server. (With
	// EnforceContext on llama.cpp it ends when the slot is full.)
	Endless bool
	// Runaway repeats Text until the request's generation limit
	// (num_predict / n_predict / max_tokens; the context without one),
	// where the server stops it with done_reason "length" (stop_type
	// "limit", finish_reason "length"): a model that never stops on its
	// own, as a random-weight one does.
	Runaway bool
	// Status, when neither 0 nor 200, answers with that HTTP status and Error
	// instead of generating.
	Status int
	// Error with Status: the error message. Without Status: an error the
	// server sends inside the stream after Text, in place of the final chunk.
	Error string
	// Problem is set by a responder that had to improvise (an exhausted
	// script, no matching rule). The server records it as a test failure
	// when it has a testing.TB, and logs it otherwise.
	Problem string
}

// Responder decides the reply to each call. It is called concurrently when
// requests overlap.
type Responder interface {
	Respond(Call) Reply
}

// ResponderFunc adapts a function.
type ResponderFunc func(Call) Reply

// Respond calls f.
func (f ResponderFunc) Respond(c Call) Reply { return f(c) }

// Default replies used when a script or rule set has nothing to say.
const (
	DefaultStepReply  = "Thought: the fake LLM has no scripted reply for this prompt.\nFinal Answer: no scripted reply"
	DefaultJudgeReply = `{"analysis": "the fake LLM has no scripted judge reply", "status": true}`
)

func defaultReply(c Call, problem string) Reply {
	text := DefaultStepReply
	if c.Kind() == KindJudge {
		text = DefaultJudgeReply
	}
	return Reply{Text: text, Problem: problem}
}

// Script answers from two queues: calls that ask for structured output take
// the next of Judges, all others the next of Steps. An exhausted queue gives
// a default reply and reports a Problem. Use it as a pointer.
type Script struct {
	Steps  []string
	Judges []string

	mu        sync.Mutex
	nextStep  int
	nextJudge int
}

// Respond takes the next reply from the matching queue.
func (s *Script) Respond(c Call) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Kind() == KindJudge {
		if s.nextJudge >= len(s.Judges) {
			return defaultReply(c, fmt.Sprintf("script exhausted: judge call %d (call #%d) but only %d judge replies scripted; prompt starts %q",
				s.nextJudge+1, c.Index, len(s.Judges), head(c.Prompt)))
		}
		s.nextJudge++
		return Reply{Text: s.Judges[s.nextJudge-1]}
	}
	if s.nextStep >= len(s.Steps) {
		return defaultReply(c, fmt.Sprintf("script exhausted: step call %d (call #%d) but only %d step replies scripted; prompt starts %q",
			s.nextStep+1, c.Index, len(s.Steps), head(c.Prompt)))
	}
	s.nextStep++
	return Reply{Text: s.Steps[s.nextStep-1]}
}

// Used reports how many step and judge replies have been handed out.
func (s *Script) Used() (steps, judges int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextStep, s.nextJudge
}

func head(s string) string {
	const n = 80
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Rule answers calls whose prompt contains a substring.
type Rule struct {
	// Contains must occur in the prompt; empty matches every prompt.
	Contains string
	// Kind restricts the rule to step or judge calls; empty matches both.
	Kind  Kind
	Reply Reply
}

// Matches reports whether the rule applies to c.
func (r Rule) Matches(c Call) bool {
	if r.Kind != "" && r.Kind != c.Kind() {
		return false
	}
	return strings.Contains(c.Prompt, r.Contains)
}

// Rules answers with the first matching rule, else asks Else. With no Else,
// an unmatched call gets a default reply and reports a Problem.
type Rules struct {
	List []Rule
	Else Responder
}

// Respond applies the first matching rule.
func (rs Rules) Respond(c Call) Reply {
	for _, r := range rs.List {
		if r.Matches(c) {
			return r.Reply
		}
	}
	if rs.Else != nil {
		return rs.Else.Respond(c)
	}
	return defaultReply(c, fmt.Sprintf("no rule matches %s call #%d; prompt starts %q", c.Kind(), c.Index, head(c.Prompt)))
}
