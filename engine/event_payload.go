package engine

import (
	"encoding/json"
	"strings"
)

// Payload types: one per event type, a closed set (Payload has an
// unexported method). A payload's fields and their `json` tags are the
// event's wire format (CONTRACT.md): a plain key is always written, an
// `omitempty` key only when set. The few keys the contract writes in a way
// tags cannot say (a nil list written as [], a nil *bool as false, a key
// written when another is set) are written by the payload's MarshalJSON.
//
// The header (type, session, seq, time, turn, step) is not part of a
// payload; StepRule says whether the type writes `step`.
//
// Adding an event type means adding its payload type here (the type, its
// EventType, its sanitized copy and its row in payloadDecoders) and
// rendering it where it shows (a case in the type switches of cli,
// ui/trajectory, store/export, engine/fold); encoding and decoding need no
// other change.

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
	// EventGate is the retrieval gate before the loop (gate.go,
	// gate_strategies.go).
	EventGate = "gate"
	// EventRefinement is an observation refinement under the context
	// budget (refine.go).
	EventRefinement = "refinement"
	// EventRewrite opens a follow-up turn: its question rewritten into a
	// standalone one (thread.go).
	EventRewrite = "rewrite"
	// EventEvidence is an answer's claims with the quotes of the cited
	// documents that support them (evidence.go).
	EventEvidence = "evidence"
)

// Payload is the type-specific part of an event.
type Payload interface {
	// EventType is the event's type (one of the Event* constants).
	EventType() string
	// sanitized is the payload with terminal control sequences removed
	// from every text it carries (sanitize.go).
	sanitized() Payload
}

// StepRule says whether an event type writes the header's step.
type StepRule int

const (
	// StepAlways writes step, even 0.
	StepAlways StepRule = iota
	// StepOptional writes step when it is not 0.
	StepOptional
	// StepNever never writes step.
	StepNever
)

// stepRuler is implemented by payloads whose step rule is not StepAlways.
type stepRuler interface{ StepRule() StepRule }

// SessionStart opens a session ("session").
type SessionStart struct {
	Question string     `json:"question"`
	Config   *RunConfig `json:"config"`
	// Privacy is what the run may send off the machine (privacy.go).
	Privacy *Privacy `json:"privacy,omitempty"`
}

// Thought is the reasoning model's thought ("thought").
type Thought struct {
	Text string `json:"text"`
	// Role is the LLM role that produced it ("step", "forced").
	Role string `json:"role,omitempty"`
}

// Action is the tool call of a reasoning step ("action").
type Action struct {
	Tool  string `json:"tool"`
	Query string `json:"query"`
}

// Retrieval is one search actually performed ("retrieval").
type Retrieval struct {
	Source string     `json:"source"`
	Query  string     `json:"query"`
	Docs   []Document `json:"docs"` // [] when nil
	// Reflection marks a search of the reflection supplement.
	Reflection bool `json:"reflection,omitempty"`
	// Cached is set when the answer came from the web cache (an empty one
	// too): no request was sent.
	Cached bool `json:"cached,omitempty"`
	// Outcome is set when the search did not answer normally (one of the
	// Outcome constants); Note then says why.
	Outcome string `json:"outcome,omitempty"`
	Note    string `json:"note,omitempty"`
}

// Selection is the judge's decision on a retrieval ("selection").
type Selection struct {
	Status     *bool   `json:"status"` // false when nil
	Analysis   string  `json:"analysis"`
	NextSource *string `json:"next_source"` // null when nil
	Source     string  `json:"source,omitempty"`
	// The exact texts the judge saw (for preference pairs).
	// JudgeObtained is written when JudgeNew is set, even empty.
	JudgeObtained string `json:"judge_obtained,omitempty"`
	JudgeNew      string `json:"judge_new,omitempty"`
	// JudgeRepeated names the documents the search brought again, which
	// the judge was told were obtained before ("[1] Title; [3] Title"),
	// not shown as new.
	JudgeRepeated string `json:"judge_repeated,omitempty"`
	// NothingNew marks a decision taken without the judge: the search
	// brought no document, or only documents obtained before.
	NothingNew bool `json:"nothing_new,omitempty"`
}

// NothingNewReason is a nothing-new decision's analysis without its
// leading "nothing new: " (the renderers say that in their own words).
func (p Selection) NothingNewReason() string {
	return strings.TrimPrefix(p.Analysis, "nothing new: ")
}

// Observation is what entered the reasoning context ("observation").
type Observation struct {
	Source string   `json:"source"`
	DocIDs []string `json:"doc_ids"` // [] when nil
	// Note says why the web was wanted but not used.
	Note string `json:"note,omitempty"`
	// DocNums is the number each document got in the context ([n]).
	DocNums []int `json:"doc_nums,omitempty"`
	// Discarded are documents retrieved but kept out of the context.
	Discarded []string `json:"discarded,omitempty"`
}

// Answer is a (possibly self-evaluated) answer of a step ("answer").
type Answer struct {
	Text        string `json:"text"`
	Label       string `json:"label"`
	Explanation string `json:"explanation"`
	Suggestions string `json:"suggestions"`
	Role        string `json:"role,omitempty"`
}

// Supplement is the reflection's multi-source retrieval ("supplement").
type Supplement struct {
	Query   string   `json:"query"`
	DocIDs  []string `json:"doc_ids"` // [] when nil
	DocNums []int    `json:"doc_nums,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// Final ends a run ("final").
type Final struct {
	Answer           string     `json:"answer"`
	Forced           bool       `json:"forced"`
	Counts           *Counts    `json:"counts"` // zero counts when nil
	Cancelled        bool       `json:"cancelled,omitempty"`
	Label            string     `json:"label,omitempty"`
	Citations        []int      `json:"citations,omitempty"`
	InvalidCitations []int      `json:"invalid_citations,omitempty"`
	Sources          []Document `json:"sources,omitempty"`
	// SourceNums is the context number [n] of each of Sources (cited ones
	// first, in citation order, then the rest of the context).
	SourceNums []int `json:"source_nums,omitempty"`
}

// Notice is an "error" event: a fatal error, or (Fatal false) a notice the
// run continues after. The fatal error that ends a run carries the run's
// counts so far (its calls and tokens are spent even though it failed).
type Notice struct {
	Message string  `json:"message"`
	Fatal   bool    `json:"fatal"`
	Source  string  `json:"source,omitempty"`
	Counts  *Counts `json:"counts,omitempty"`
}

// Token is a streamed text delta ("token"). It is never stored.
type Token struct {
	Text string `json:"text"`
	Role string `json:"role,omitempty"`
}

// Gate is the retrieval gate before the loop ("gate", CONTRACT.md),
// emitted by the gated strategies (gate.go, gate_strategies.go).
type Gate struct {
	HeuristicAnswer string   `json:"heuristic_answer"`
	Retrieve        bool     `json:"retrieve"`
	Analysis        string   `json:"analysis"`
	Queries         []string `json:"queries"` // [] when nil
}

// Refinement is an observation refinement under the context budget
// ("refinement", CONTRACT.md), emitted by refine.go.
type Refinement struct {
	BeforeChars int   `json:"before_chars"`
	AfterChars  int   `json:"after_chars"`
	Steps       []int `json:"steps"` // [] when nil
	// ThreadDocs is how many documents carried from a thread's earlier
	// turns were condensed into the note (0, left out, when none).
	ThreadDocs int `json:"thread_docs,omitempty"`
}

// Rewrite is a follow-up question rewritten into a standalone one
// ("rewrite", CONTRACT.md): the first event of a follow-up turn (thread.go).
type Rewrite struct {
	Original  string `json:"original"`
	Rewritten string `json:"rewritten"`
	// Privacy is what the follow-up may send off the machine: the
	// thread's where stricter than its own settings (privacy.go).
	Privacy *Privacy `json:"privacy,omitempty"`
}

func (SessionStart) EventType() string { return EventSession }
func (Thought) EventType() string      { return EventThought }
func (Action) EventType() string       { return EventAction }
func (Retrieval) EventType() string    { return EventRetrieval }
func (Selection) EventType() string    { return EventSelection }
func (Observation) EventType() string  { return EventObservation }
func (Answer) EventType() string       { return EventAnswer }
func (Supplement) EventType() string   { return EventSupplement }
func (Final) EventType() string        { return EventFinal }
func (Notice) EventType() string       { return EventError }
func (Token) EventType() string        { return EventToken }
func (Gate) EventType() string         { return EventGate }
func (Refinement) EventType() string   { return EventRefinement }
func (Rewrite) EventType() string      { return EventRewrite }

func (SessionStart) StepRule() StepRule { return StepNever }
func (Supplement) StepRule() StepRule   { return StepOptional }
func (Final) StepRule() StepRule        { return StepNever }
func (Notice) StepRule() StepRule       { return StepOptional }
func (Gate) StepRule() StepRule         { return StepNever }
func (Rewrite) StepRule() StepRule      { return StepNever }

// Observed is implemented by the payloads that put documents into the
// reasoning context (observation, supplement).
type Observed interface {
	Payload
	// ContextIDs are the ids of the documents that entered the context.
	ContextIDs() []string
}

func (p Observation) ContextIDs() []string { return p.DocIDs }
func (p Supplement) ContextIDs() []string  { return p.DocIDs }

// Unknown is the payload of an event whose type this build does not know
// (written by a newer one): its type and its fields as read, header keys
// excepted. It is written back as it was read.
type Unknown struct {
	Type   string
	Fields map[string]json.RawMessage
}

func (u Unknown) EventType() string { return u.Type }

// payloadDecoders reads the payload of each known type from an event's JSON
// object (the header's keys are ignored).
var payloadDecoders = map[string]func([]byte) (Payload, error){
	EventSession:     decodeAs[SessionStart],
	EventThought:     decodeAs[Thought],
	EventAction:      decodeAs[Action],
	EventRetrieval:   decodeAs[Retrieval],
	EventSelection:   decodeAs[Selection],
	EventObservation: decodeAs[Observation],
	EventAnswer:      decodeAs[Answer],
	EventSupplement:  decodeAs[Supplement],
	EventFinal:       decodeAs[Final],
	EventError:       decodeAs[Notice],
	EventToken:       decodeAs[Token],
	EventGate:        decodeAs[Gate],
	EventRefinement:  decodeAs[Refinement],
	EventRewrite:     decodeAs[Rewrite],
	// thread_budget.go
	EventThreadContext: decodeAs[ThreadContext],
	EventEvidence:      decodeAs[Evidence],
}

func decodeAs[P Payload](b []byte) (Payload, error) {
	var p P
	err := json.Unmarshal(b, &p)
	return p, err
}

// The contract's rules that tags cannot say. A payload with such a rule
// has a wire method giving the value to encode (a copy with the rule
// applied, of a type without methods); MarshalJSON encodes it.

// wirer is implemented by payloads with a rule tags cannot say.
type wirer interface{ wire() any }

func (p Retrieval) wire() any {
	type plain Retrieval
	p.Docs = orEmpty(p.Docs)
	return plain(p)
}

func (p Selection) wire() any {
	type plain Selection
	if p.Status == nil {
		p.Status = new(bool)
	}
	if p.JudgeNew == "" {
		return plain(p)
	}
	// judge_obtained goes with judge_new: written even when empty.
	return struct {
		plain
		JudgeObtained string `json:"judge_obtained"`
	}{plain(p), p.JudgeObtained}
}

func (p Observation) wire() any {
	type plain Observation
	p.DocIDs = orEmpty(p.DocIDs)
	return plain(p)
}

func (p Supplement) wire() any {
	type plain Supplement
	p.DocIDs = orEmpty(p.DocIDs)
	return plain(p)
}

func (p Final) wire() any {
	type plain Final
	if p.Counts == nil {
		p.Counts = &Counts{}
	}
	return plain(p)
}

func (p Gate) wire() any {
	type plain Gate
	p.Queries = orEmpty(p.Queries)
	return plain(p)
}

func (p Refinement) wire() any {
	type plain Refinement
	p.Steps = orEmpty(p.Steps)
	return plain(p)
}

func (p Retrieval) MarshalJSON() ([]byte, error)   { return json.Marshal(p.wire()) }
func (p Selection) MarshalJSON() ([]byte, error)   { return json.Marshal(p.wire()) }
func (p Observation) MarshalJSON() ([]byte, error) { return json.Marshal(p.wire()) }
func (p Supplement) MarshalJSON() ([]byte, error)  { return json.Marshal(p.wire()) }
func (p Final) MarshalJSON() ([]byte, error)       { return json.Marshal(p.wire()) }
func (p Gate) MarshalJSON() ([]byte, error)        { return json.Marshal(p.wire()) }
func (p Refinement) MarshalJSON() ([]byte, error)  { return json.Marshal(p.wire()) }

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Sanitized copies (sanitize.go): every text a payload carries, without
// terminal control sequences. Slices are copied.

func (p SessionStart) sanitized() Payload {
	p.Question = clean(p.Question)
	return p
}

func (p Thought) sanitized() Payload {
	p.Text = clean(p.Text)
	return p
}

func (p Action) sanitized() Payload {
	p.Tool, p.Query = clean(p.Tool), clean(p.Query)
	return p
}

func (p Retrieval) sanitized() Payload {
	p.Source, p.Query, p.Note = clean(p.Source), clean(p.Query), clean(p.Note)
	p.Docs = sanitizeDocs(p.Docs)
	return p
}

func (p Selection) sanitized() Payload {
	p.Analysis, p.Source = clean(p.Analysis), clean(p.Source)
	p.JudgeObtained, p.JudgeNew, p.JudgeRepeated = clean(p.JudgeObtained), clean(p.JudgeNew), clean(p.JudgeRepeated)
	if p.NextSource != nil {
		ns := clean(*p.NextSource)
		p.NextSource = &ns
	}
	return p
}

func (p Observation) sanitized() Payload {
	p.Source, p.Note = clean(p.Source), clean(p.Note)
	p.DocIDs, p.Discarded = sanitizeIDs(p.DocIDs), sanitizeIDs(p.Discarded)
	return p
}

func (p Answer) sanitized() Payload {
	p.Text, p.Label, p.Explanation, p.Suggestions = clean(p.Text), clean(p.Label), clean(p.Explanation), clean(p.Suggestions)
	return p
}

func (p Supplement) sanitized() Payload {
	p.Query, p.Note = clean(p.Query), clean(p.Note)
	p.DocIDs = sanitizeIDs(p.DocIDs)
	return p
}

func (p Final) sanitized() Payload {
	p.Answer, p.Label = clean(p.Answer), clean(p.Label)
	p.Sources = sanitizeDocs(p.Sources)
	return p
}

func (p Notice) sanitized() Payload {
	p.Message, p.Source = clean(p.Message), clean(p.Source)
	return p
}

func (p Token) sanitized() Payload {
	p.Text = clean(p.Text)
	return p
}

func (p Gate) sanitized() Payload { return sanitizeGate(p) }

func (p Refinement) sanitized() Payload { return p }

func (p Rewrite) sanitized() Payload {
	p.Original, p.Rewritten = clean(p.Original), clean(p.Rewritten)
	return p
}

// An unknown payload is never emitted, only read: it is kept as read.
func (u Unknown) sanitized() Payload { return u }
