package engine

import (
	"encoding/json"
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

// Event is one thing that happened in a run. Only the fields of its Type are
// meaningful; MarshalJSON writes exactly those (see CONTRACT.md).
type Event struct {
	Type    string    `json:"type"`
	Session string    `json:"session"`
	Seq     int       `json:"seq"`
	Time    time.Time `json:"time"`

	// session
	Question string    `json:"question,omitempty"`
	Config   *Settings `json:"config,omitempty"`

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

// MarshalJSON writes the common fields plus the fields of the event's type.
// Contract fields are always present for their type (even when empty or
// false); extension fields only when set.
func (e Event) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"type":    e.Type,
		"session": e.Session,
		"seq":     e.Seq,
		"time":    e.Time.UTC().Format(time.RFC3339Nano),
	}
	docs := func() []Document {
		if e.Docs == nil {
			return []Document{}
		}
		return e.Docs
	}
	ids := func() []string {
		if e.DocIDs == nil {
			return []string{}
		}
		return e.DocIDs
	}
	optional := func(k string, v any, set bool) {
		if set {
			m[k] = v
		}
	}
	switch e.Type {
	case EventSession:
		m["question"] = e.Question
		m["config"] = e.Config
	case EventThought:
		m["step"] = e.Step
		m["text"] = e.Text
		optional("role", e.Role, e.Role != "")
	case EventAction:
		m["step"] = e.Step
		m["tool"] = e.Tool
		m["query"] = e.Query
	case EventRetrieval:
		m["step"] = e.Step
		m["source"] = e.Source
		m["query"] = e.Query
		m["docs"] = docs()
		optional("reflection", true, e.Reflection)
		optional("outcome", e.Outcome, e.Outcome != "")
		optional("note", e.Note, e.Note != "")
	case EventSelection:
		m["step"] = e.Step
		st := e.Status != nil && *e.Status
		m["status"] = st
		m["analysis"] = e.Analysis
		m["next_source"] = e.NextSource // null when nil
		optional("source", e.Source, e.Source != "")
		optional("judge_obtained", e.JudgeObtained, e.JudgeObtained != "" || e.JudgeNew != "")
		optional("judge_new", e.JudgeNew, e.JudgeNew != "")
	case EventObservation:
		m["step"] = e.Step
		m["source"] = e.Source
		m["doc_ids"] = ids()
		optional("note", e.Note, e.Note != "")
		optional("doc_nums", e.DocNums, len(e.DocNums) > 0)
		optional("discarded", e.Discarded, len(e.Discarded) > 0)
	case EventAnswer:
		m["step"] = e.Step
		m["text"] = e.Text
		m["label"] = e.Label
		m["explanation"] = e.Explanation
		m["suggestions"] = e.Suggestions
		optional("role", e.Role, e.Role != "")
	case EventSupplement:
		m["query"] = e.Query
		m["doc_ids"] = ids()
		optional("step", e.Step, e.Step != 0)
		optional("doc_nums", e.DocNums, len(e.DocNums) > 0)
		optional("note", e.Note, e.Note != "")
	case EventFinal:
		m["answer"] = e.Answer
		m["forced"] = e.Forced
		c := e.Counts
		if c == nil {
			c = &Counts{}
		}
		m["counts"] = c
		optional("cancelled", e.Cancelled, e.Cancelled)
		optional("label", e.Label, e.Label != "")
		optional("citations", e.Citations, len(e.Citations) > 0)
		optional("invalid_citations", e.InvalidCitations, len(e.InvalidCitations) > 0)
		optional("sources", e.Sources, len(e.Sources) > 0)
		optional("source_nums", e.SourceNums, len(e.SourceNums) > 0)
	case EventError:
		m["message"] = e.Message
		m["fatal"] = e.Fatal
		optional("step", e.Step, e.Step != 0)
		optional("source", e.Source, e.Source != "")
	case EventToken:
		m["step"] = e.Step
		m["text"] = e.Text
		optional("role", e.Role, e.Role != "")
	default:
		// Unknown (future) type: write every set field.
		type plain Event
		b, err := json.Marshal(plain(e))
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return json.Marshal(m)
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
	// Wall time per phase, milliseconds.
	LLMMillis       int64 `json:"llm_ms"`
	RetrievalMillis int64 `json:"retrieval_ms"`
	TotalMillis     int64 `json:"total_ms"`
}

// TotalRetrievals is local plus web retrievals ("Total Num").
func (c Counts) TotalRetrievals() int { return c.LocalRetrievals + c.WebRetrievals }
