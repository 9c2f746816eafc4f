package engine

import (
	"errors"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// Event types, as in CONTRACT.md. New types may be added; none is renamed.
const (
	EventSession     = "session"
	EventThought     = "thought"
	EventAction      = "action"
	EventRetrieval   = "retrieval"
	EventSelection   = "selection"
	EventObservation = "observation"
	EventAnswer      = "answer"
	EventSupplement  = "supplement"
	EventFinal       = "final"
	EventError       = "error"
	// EventToken carries a streamed text delta. It is never stored.
	EventToken = "token"
	// Listed by CONTRACT.md; nothing emits them yet.
	EventGate       = "gate"
	EventRefinement = "refinement"
	EventRewrite    = "rewrite"
)

// Outcomes of a retrieval that did not answer normally (the retrieval
// event's "outcome"): the engine refused (rate limit, bot challenge), its
// answer was cut at the size limit (the event's docs are what could be
// read), or the source could not be reached or read.
const (
	OutcomeBlocked     = "blocked"
	OutcomeTruncated   = "truncated"
	OutcomeUnavailable = "unavailable"
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
	}
	return OutcomeUnavailable
}

// Document is the document shape of events.
type Document = sources.Document

// Event is one thing that happened in a run: a header (type, session, seq,
// time, turn, step) and the payload of its type (event_payload.go).
//
// The payloads of the types below are kept in the flat fields that follow
// the header (each payload field has a twin of the same name there), so
// code can read ev.Docs or build Event{Type: EventRetrieval, Docs: …}.
// Payload() and NewEvent convert between the two forms; the wire format is
// the payload's alone. A payload type without twins (gate, refinement,
// rewrite, …) lives in Extra. Only the fields of its Type are meaningful.
type Event struct {
	Type    string    `json:"type"`
	Session string    `json:"session"`
	Seq     int       `json:"seq"`
	Time    time.Time `json:"time"`
	Turn    int       `json:"turn,omitempty"`
	// Extra holds the payload of a type whose fields have no twins below.
	Extra Payload `json:"-"`

	// session
	Question string    `json:"question,omitempty"`
	Config   *Settings `json:"config,omitempty"`
	// session: what the run may send off the machine
	Privacy *Privacy `json:"privacy,omitempty"`

	Step int `json:"step,omitempty"`

	// thought, answer, token
	Text string `json:"text,omitempty"`
	// thought/answer: which LLM role produced it ("step", "forced")
	Role string `json:"role,omitempty"`

	// action
	Tool string `json:"tool,omitempty"`
	// action, retrieval, supplement
	Query string `json:"query,omitempty"`

	// retrieval, observation
	Source string     `json:"source,omitempty"`
	Docs   []Document `json:"docs,omitempty"`
	// retrieval: set when the search did not answer normally (one of the
	// Outcome constants); Note then says why
	Outcome string `json:"outcome,omitempty"`

	// selection
	Status     *bool   `json:"status,omitempty"`
	Analysis   string  `json:"analysis,omitempty"`
	NextSource *string `json:"next_source,omitempty"`
	// selection: the exact texts the judge saw (for preference pairs)
	JudgeObtained string `json:"judge_obtained,omitempty"`
	JudgeNew      string `json:"judge_new,omitempty"`

	// observation, supplement
	DocIDs []string `json:"doc_ids,omitempty"`
	// observation: the number each document got in the context ([n])
	DocNums []int `json:"doc_nums,omitempty"`
	// observation, supplement: why the web was wanted but not used
	Note string `json:"note,omitempty"`
	// observation: documents retrieved but kept out of the context
	Discarded []string `json:"discarded,omitempty"`
	// retrieval: a search of the reflection supplement (the question
	// verbatim, no judge decision)
	Reflection bool `json:"reflection,omitempty"`
	// retrieval: the answer came from the web cache (an empty one too);
	// no request was sent
	Cached bool `json:"cached,omitempty"`

	// answer
	Label       string `json:"label,omitempty"`
	Explanation string `json:"explanation,omitempty"`
	Suggestions string `json:"suggestions,omitempty"`

	// final
	Answer           string     `json:"answer,omitempty"`
	Forced           bool       `json:"forced,omitempty"`
	Counts           *Counts    `json:"counts,omitempty"`
	Cancelled        bool       `json:"cancelled,omitempty"`
	Citations        []int      `json:"citations,omitempty"`
	InvalidCitations []int      `json:"invalid_citations,omitempty"`
	Sources          []Document `json:"sources,omitempty"`
	// final: the context number [n] of each of Sources (cited ones first,
	// in citation order, then the rest of the context)
	SourceNums []int `json:"source_nums,omitempty"`

	// error
	Message string `json:"message,omitempty"`
	Fatal   bool   `json:"fatal,omitempty"`
}

// Counts are the per-session efficiency figures (paper Tables 7–14).
type Counts struct {
	LLMCalls            int `json:"llm_calls"`
	StepCalls           int `json:"step_calls"`
	JudgeCalls          int `json:"judge_calls"`
	ForcedCalls         int `json:"forced_calls"`
	LocalRetrievals     int `json:"local_retrievals"`
	WebRetrievals       int `json:"web_retrievals"`
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
	// Retrieval gate: calls of the proxy model (also in LLMCalls and the
	// token totals) and their tokens.
	ProxyCalls        int `json:"proxy_calls,omitempty"`
	ProxyPromptTokens int `json:"proxy_prompt_tokens,omitempty"`
	ProxyOutputTokens int `json:"proxy_output_tokens,omitempty"`
	// Wall time per phase, milliseconds.
	LLMMillis       int64 `json:"llm_ms"`
	RetrievalMillis int64 `json:"retrieval_ms"`
	TotalMillis     int64 `json:"total_ms"`
}

// TotalRetrievals is local plus web retrievals ("Total Num").
func (c Counts) TotalRetrievals() int { return c.LocalRetrievals + c.WebRetrievals }
