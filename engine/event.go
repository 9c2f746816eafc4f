package engine

import (
	"errors"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// Outcomes of a retrieval that did not answer normally (the retrieval
// event's "outcome"): the engine refused (rate limit, bot challenge), its
// answer was cut at the size limit (the event's docs are what could be
// read), or the source could not be reached or read.
const (
	OutcomeBlocked     = "blocked"
	OutcomeTruncated   = "truncated"
	OutcomeUnavailable = "unavailable"
	// OutcomeDegraded: a hybrid or dense search answered by words only
	// (the corpus has no vectors, the embedding server did not answer);
	// the documents are used and the note says why.
	OutcomeDegraded = "degraded"
)

// RetrievalOutcome classifies a source's error as one of the Outcome
// constants.
func RetrievalOutcome(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, sources.ErrBlocked):
		return OutcomeBlocked
	case errors.Is(err, sources.ErrTruncated):
		return OutcomeTruncated
	case errors.Is(err, sources.ErrDegraded):
		return OutcomeDegraded
	}
	return OutcomeUnavailable
}

// Document is the document shape of events.
type Document = sources.Document

// Event is one thing that happened in a run: a header (its type, session,
// seq, time, turn and step) and one payload, a value of one of the payload
// types of event_payload.go. The type is the payload's: Type() reads it.
// The wire format (CONTRACT.md) is the header's keys and the payload's,
// sorted (event_json.go).
type Event struct {
	Session string
	Seq     int
	Time    time.Time
	// Turn numbers the questions of a thread (0: not written).
	Turn int
	// Step is written according to the payload's StepRule.
	Step    int
	Payload Payload

	// Events are not compared with ==: most payloads hold slices.
	_ [0]func()
}

// Type is the event's type (one of the Event* constants, or the type of an
// Unknown payload): its payload's. An event without a payload has type "".
func (e Event) Type() string {
	if e.Payload == nil {
		return ""
	}
	return e.Payload.EventType()
}

// Counts are the per-session efficiency figures (paper Tables 7–14).
type Counts struct {
	LLMCalls        int `json:"llm_calls"`
	StepCalls       int `json:"step_calls"`
	JudgeCalls      int `json:"judge_calls"`
	ForcedCalls     int `json:"forced_calls"`
	LocalRetrievals int `json:"local_retrievals"`
	WebRetrievals   int `json:"web_retrievals"`
	// MCPRetrievals counts the searches of MCP servers (neither local nor
	// web retrievals).
	MCPRetrievals       int `json:"mcp_retrievals,omitempty"`
	UsedRetrievals      int `json:"used_retrievals"`
	UsedLocalRetrievals int `json:"used_local_retrievals"`
	UsedDocs            int `json:"used_docs"`
	PromptTokens        int `json:"prompt_tokens"`
	CachedPromptTokens  int `json:"cached_prompt_tokens"`
	OutputTokens        int `json:"output_tokens"`
	Reflections         int `json:"reflections"`
	Switches            int `json:"switches"`
	// Refinements counts observation refinements under the context budget.
	Refinements int `json:"refinements,omitempty"`
	// RewriteCalls counts the follow-up rewrite calls (also in LLMCalls).
	RewriteCalls int `json:"rewrite_calls,omitempty"`
	// VerifyCalls counts the claim checks of --verify-claims (also in
	// LLMCalls).
	VerifyCalls int `json:"verify_calls,omitempty"`
	// Retrieval gate: calls of the proxy model (also in LLMCalls and the
	// token totals) and their tokens.
	ProxyCalls        int `json:"proxy_calls,omitempty"`
	ProxyPromptTokens int `json:"proxy_prompt_tokens,omitempty"`
	ProxyOutputTokens int `json:"proxy_output_tokens,omitempty"`
	// EmbedCalls and EmbedTokens count the embedding calls that embedded
	// search queries (a corpus searched by meaning), not in LLMCalls.
	EmbedCalls  int `json:"embed_calls,omitempty"`
	EmbedTokens int `json:"embed_tokens,omitempty"`
	// Wall time per phase, milliseconds.
	LLMMillis       int64 `json:"llm_ms"`
	RetrievalMillis int64 `json:"retrieval_ms"`
	TotalMillis     int64 `json:"total_ms"`
}

// TotalRetrievals is local plus MCP plus web retrievals ("Total Num").
func (c Counts) TotalRetrievals() int { return c.LocalRetrievals + c.MCPRetrievals + c.WebRetrievals }
