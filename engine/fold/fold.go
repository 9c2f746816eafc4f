// Package fold folds engine events into a trajectory — one block per
// reasoning step (its thought, action, retrievals, selections, observation
// and answer), one per reflection supplement, the final answer and the
// notices — for everything that shows a run: the TUI (ui/trajectory) and
// the Markdown export (store/export). A live run and a replayed session go
// through the same code: events in, blocks out. It knows no UI.
package fold

import (
	"fmt"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// Kind tells a reasoning step from a reflection supplement.
type Kind int

const (
	// KindStep is one Thought / Action / Observation (or Final Answer) turn.
	KindStep Kind = iota
	// KindSupplement is the reflection's multi-source retrieval after a
	// weak answer.
	KindSupplement
	// KindNote is an event of the run outside the loop's steps: the
	// retrieval gate, a question rewrite, an observation refinement. Note
	// is its event; events of the steps never fold into it.
	KindNote
)

// Retrieval is one search actually performed.
type Retrieval struct {
	Source string
	Query  string
	Docs   []sources.Document
	// Outcome is set when the search failed or was cut (engine.Outcome*);
	// Note says why.
	Outcome string
	Note    string
	// At is when the search was made (ages of cached results count to it).
	At time.Time
	// Cached: the answer came from the web cache (an empty one too).
	Cached bool
}

// Block is one visible unit of the trajectory. Only the fields its events
// filled are set.
type Block struct {
	Kind Kind
	Step int
	// Turn is the question of the thread the block belongs to (1, 2, …).
	Turn int

	Thought     string
	ThoughtRole string

	HasAction bool
	Tool      string
	Query     string

	Retrievals []Retrieval
	Selections []Decision
	// Trace is the retrievals and selections in the order they happened.
	Trace       []TraceItem
	Observation *engine.Observation
	Answer      *engine.Answer
	Supplement  *engine.Supplement
	Errors      []engine.Notice
	// Note is the event of a KindNote block (its payload a Gate, Rewrite or
	// Refinement).
	Note *engine.Event

	// obsSeq and supSeq are the seqs of the observation and supplement.
	obsSeq, supSeq int

	// version changes on every mutation; render caches key on it.
	version int
}

// Decision is a judge's decision and the seq of its event (an analyst's
// verdict refers to it).
type Decision struct {
	Seq int
	engine.Selection
}

// TraceItem is one retrieval, selection or error of the retrieval phase
// (exactly one is set).
type TraceItem struct {
	Retrieval *Retrieval
	Selection *engine.Selection
	Error     *engine.Notice
}

// Live is the text streaming in for a step whose parsed events have not
// arrived yet.
type Live struct {
	Step int
	Role string
	Text string
}

// Trajectory is the folded state of one session.
type Trajectory struct {
	Session  string
	Question string
	Config   *engine.RunConfig
	Started  time.Time

	Blocks []*Block
	// Final is the final payload of the current (latest) turn; nil while
	// it runs. Turns keeps every turn's (turns.go). FinalAt is its time.
	Final   *engine.Final
	FinalAt time.Time
	// Evidence is the evidence payload of the current turn (emitted just
	// before its final); nil without one.
	Evidence *engine.Evidence
	// Turns are the questions of the session's thread, in order: one for
	// a session without follow-ups.
	Turns []*Turn
	// Errors are error events that belong to no block (before the first
	// step, or after the final answer).
	Errors []engine.Notice

	// Events are the applied events in order, tokens excluded: exactly what
	// the store keeps.
	Events []engine.Event

	// Tokens counts streamed token events.
	Tokens int

	// version changes with every applied event but tokens.
	version int

	docs    map[string]sources.Document
	cur     int // the current turn
	live    strings.Builder
	liveEv  Live
	liveVer int
}

// SupplementFirst reports whether the block's supplement came before its
// observation.
func (b *Block) SupplementFirst() bool {
	return b.Observation != nil && b.Supplement != nil && b.supSeq < b.obsSeq
}

// Version changes with every applied event but tokens (render caches key
// on it).
func (t *Trajectory) Version() int { return t.version }

// Version changes on every mutation of the block.
func (b *Block) Version() int { return b.version }

// Last is the last step or supplement block (notes skipped), or nil.
func (t *Trajectory) Last() *Block { return t.last() }

// New returns an empty trajectory.
func New() *Trajectory {
	return &Trajectory{docs: map[string]sources.Document{}}
}

// FromEvents folds stored events into a trajectory.
func FromEvents(events []engine.Event) *Trajectory {
	t := New()
	for _, ev := range events {
		t.Apply(ev)
	}
	return t
}

// Live returns the text streaming in, if any.
func (t *Trajectory) Live() Live {
	l := t.liveEv
	l.Text = t.live.String()
	return l
}

// LiveVersion changes whenever the streaming text changes.
func (t *Trajectory) LiveVersion() int { return t.liveVer }

// Doc returns a document seen in any retrieval of this session.
func (t *Trajectory) Doc(id string) (sources.Document, bool) {
	d, ok := t.docs[id]
	return d, ok
}

// CurrentStep is the highest step number seen so far.
func (t *Trajectory) CurrentStep() int {
	n := t.liveEv.Step
	for _, b := range t.Blocks {
		if b.Turn < t.cur {
			continue // steps are numbered per turn
		}
		if b.Step > n {
			n = b.Step
		}
	}
	return n
}

// Label is the self-evaluation label of the current turn's final answer
// (TurnLabel).
func (t *Trajectory) Label() string { return t.TurnLabel(t.CurrentTurn()) }

// TurnLabel is the self-evaluation label of turn n's final answer: the
// final event's own label, else that of the turn's last answer. A turn
// without an answer (a follow-up cancelled before one) has none: another
// turn's label is never shown as this turn's.
func (t *Trajectory) TurnLabel(n int) string {
	final := t.Final
	if n != t.CurrentTurn() {
		final = nil
		if n >= 1 && n <= len(t.Turns) {
			final = t.Turns[n-1].Final
		}
	}
	if final != nil && final.Label != "" {
		return final.Label
	}
	for i := len(t.Blocks) - 1; i >= 0; i-- {
		if b := t.Blocks[i]; max(b.Turn, 1) == n && b.Answer != nil {
			return b.Answer.Label
		}
	}
	return ""
}

// MCPSearches counts turn n's searches of MCP servers.
func (t *Trajectory) MCPSearches(n int) int {
	count := 0
	for _, b := range t.Blocks {
		if max(b.Turn, 1) != max(n, 1) {
			continue
		}
		for _, r := range b.Retrievals {
			if k, _ := sources.SourceKind(r.Source); k.IsMCP() {
				count++
			}
		}
	}
	return count
}

// RetrievalCounts counts local and web searches and the observations whose
// documents entered the context, in the current turn.
func (t *Trajectory) RetrievalCounts() (local, web, used int) {
	_, local, web, used = t.TurnFigures(t.cur)
	return local, web, used
}

// TurnFigures are turn n's highest step and its searches counted from its
// blocks: local (corpora), web, and those whose documents entered the
// context; MCP searches are MCPSearches. Blocks of a session without turns
// count as turn 1.
func (t *Trajectory) TurnFigures(n int) (step, local, web, used int) {
	for _, b := range t.Blocks {
		if max(b.Turn, 1) != max(n, 1) {
			continue
		}
		step = max(step, b.Step)
		for _, r := range b.Retrievals {
			switch k, _ := sources.SourceKind(r.Source); {
			case k == sources.KindWeb:
				web++
			case k.IsMCP():
			default:
				local++
			}
		}
		if b.Observation != nil && len(b.Observation.DocIDs) > 0 {
			used++
		}
		if b.Supplement != nil && len(b.Supplement.DocIDs) > 0 {
			used++
		}
	}
	return step, local, web, used
}

func (t *Trajectory) applyToken(step int, tok engine.Token) {
	t.Tokens++
	if t.live.Len() > 0 && (step != t.liveEv.Step || tok.Role != t.liveEv.Role) {
		t.live.Reset()
	}
	t.liveEv.Step, t.liveEv.Role = step, tok.Role
	t.live.WriteString(tok.Text)
	t.liveVer++
}

// ClearLive drops the text streaming in (a parsed event does it too).
func (t *Trajectory) ClearLive() { t.clearLive() }

func (t *Trajectory) clearLive() {
	if t.live.Len() == 0 {
		return
	}
	t.live.Reset()
	t.liveVer++
}

// last is the block the events of a step fold into: the last one that is
// not a note.
func (t *Trajectory) last() *Block {
	for i := len(t.Blocks) - 1; i >= 0; i-- {
		b := t.Blocks[i]
		if b.Turn < t.cur {
			return nil // a new turn folds into blocks of its own
		}
		if b.Kind != KindNote {
			return b
		}
	}
	return nil
}

func (t *Trajectory) add(k Kind, step int) *Block {
	b := &Block{Kind: k, Step: step, Turn: max(t.cur, 1)}
	t.Blocks = append(t.Blocks, b)
	return b
}

// forStep returns the block a retrieval-phase event (selection,
// observation) belongs to: the last block, or a new one when there is none.
func (t *Trajectory) forStep(step int) *Block {
	if b := t.last(); b != nil {
		return b
	}
	return t.add(KindStep, step)
}

// ObservedDocs returns the documents that entered the context in this block
// (its observation, else its supplement), in context order. An id that no
// retrieval carried comes back as a document with only its ID.
func (t *Trajectory) ObservedDocs(b *Block) []sources.Document {
	var ids []string
	switch {
	case b.Observation != nil:
		ids = b.Observation.DocIDs
	case b.Supplement != nil:
		ids = b.Supplement.DocIDs
	}
	out := make([]sources.Document, 0, len(ids))
	for _, id := range ids {
		if d, ok := t.blockDoc(b, id); ok {
			out = append(out, d)
			continue
		}
		out = append(out, sources.Document{ID: id, Title: id})
	}
	return out
}

func (t *Trajectory) blockDoc(b *Block, id string) (sources.Document, bool) {
	src := ""
	if b.Observation != nil {
		src = b.Observation.Source
	}
	// Prefer the copy retrieved from the observation's own source: the same
	// id may have come back from two searches.
	for _, r := range b.Retrievals {
		if src != "" && r.Source != src {
			continue
		}
		for _, d := range r.Docs {
			if d.ID == id {
				return d, true
			}
		}
	}
	for _, r := range b.Retrievals {
		for _, d := range r.Docs {
			if d.ID == id {
				return d, true
			}
		}
	}
	d, ok := t.docs[id]
	return d, ok
}

// Discarded returns the documents this block retrieved that the selection
// kept out of the context.
func (t *Trajectory) Discarded(b *Block) []sources.Document {
	if b.Observation == nil {
		return nil
	}
	if len(b.Observation.Discarded) > 0 {
		out := make([]sources.Document, 0, len(b.Observation.Discarded))
		for _, id := range b.Observation.Discarded {
			d, ok := t.blockDoc(b, id)
			if !ok {
				d = sources.Document{ID: id, Title: id}
			}
			out = append(out, d)
		}
		return out
	}
	used := make(map[string]bool, len(b.Observation.DocIDs))
	for _, id := range b.Observation.DocIDs {
		used[id] = true
	}
	var out []sources.Document
	for _, r := range b.Retrievals {
		if r.Source == b.Observation.Source {
			continue
		}
		for _, d := range r.Docs {
			if !used[d.ID] {
				out = append(out, d)
			}
		}
	}
	return out
}

// ContextBefore returns the documents that were in the reasoning model's
// context before block i: everything observed or supplemented earlier, in
// order, with the number the engine gave each ([n]) when known.
func (t *Trajectory) ContextBefore(i int) []ContextDoc {
	var out []ContextDoc
	seen := map[string]bool{}
	for _, b := range t.Blocks[:min(i, len(t.Blocks))] {
		var nums []int
		switch {
		case b.Observation != nil:
			nums = b.Observation.DocNums
		case b.Supplement != nil:
			nums = b.Supplement.DocNums
		}
		for j, d := range t.ObservedDocs(b) {
			n := 0
			if j < len(nums) {
				n = nums[j]
			}
			// A document observed again keeps its number: list it once.
			key := d.Source + "\x00" + d.ID
			if n > 0 {
				key = fmt.Sprint(n)
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, ContextDoc{Num: n, Doc: d})
		}
	}
	return out
}

// ContextDoc is a document in the reasoning context and its number.
type ContextDoc struct {
	Num int
	Doc sources.Document
}
