package engine

// Payload types: one per event type. A payload's fields and their `json`
// tags are the event's wire format (CONTRACT.md): a plain key is always
// written, an `omitempty` key only when set. The `event` tag refines what
// an unset value is written as:
//
//	event:"list"      a nil slice is written as []
//	event:"false"     a nil *bool is written as false
//	event:"zero"      a nil pointer is written as the zero value
//	event:"with=F"    an omitempty key is also written when field F is set
//
// The header (type, session, seq, time, turn, step) is not part of a
// payload; StepRule says whether the type writes `step`.
//
// Adding an event type means adding its payload type here, registering it
// in init below, and rendering it (cli, ui/trajectory,
// store/export); encoding and decoding need no other change.

// Payload is the type-specific part of an event.
type Payload interface {
	EventType() string
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
	Question string    `json:"question"`
	Config   *Settings `json:"config"`
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
	Docs   []Document `json:"docs" event:"list"`
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
	Status     *bool   `json:"status" event:"false"`
	Analysis   string  `json:"analysis"`
	NextSource *string `json:"next_source"` // null when nil
	Source     string  `json:"source,omitempty"`
	// The exact texts the judge saw (for preference pairs).
	JudgeObtained string `json:"judge_obtained,omitempty" event:"with=JudgeNew"`
	JudgeNew      string `json:"judge_new,omitempty"`
}

// Observation is what entered the reasoning context ("observation").
type Observation struct {
	Source string   `json:"source"`
	DocIDs []string `json:"doc_ids" event:"list"`
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
	DocIDs  []string `json:"doc_ids" event:"list"`
	DocNums []int    `json:"doc_nums,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// Final ends a run ("final").
type Final struct {
	Answer           string     `json:"answer"`
	Forced           bool       `json:"forced"`
	Counts           *Counts    `json:"counts" event:"zero"`
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
// run continues after.
type Notice struct {
	Message string `json:"message"`
	Fatal   bool   `json:"fatal"`
	Source  string `json:"source,omitempty"`
}

// Token is a streamed text delta ("token"). It is never stored.
type Token struct {
	Text string `json:"text"`
	Role string `json:"role,omitempty"`
}

// Gate is the retrieval gate before the loop ("gate", CONTRACT.md). No
// strategy emits it yet.
type Gate struct {
	HeuristicAnswer string   `json:"heuristic_answer"`
	Retrieve        bool     `json:"retrieve"`
	Analysis        string   `json:"analysis"`
	Queries         []string `json:"queries" event:"list"`
}

// Refinement is an observation refinement under the context budget
// ("refinement", CONTRACT.md), emitted by refine.go.
type Refinement struct {
	BeforeChars int   `json:"before_chars"`
	AfterChars  int   `json:"after_chars"`
	Steps       []int `json:"steps" event:"list"`
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

func init() {
	for _, p := range []Payload{SessionStart{}, Thought{}, Action{}, Retrieval{}, Selection{}, Observation{},
		Answer{}, Supplement{}, Final{}, Notice{}, Token{}, Gate{}, Refinement{}, Rewrite{}} {
		register(p)
	}
}
