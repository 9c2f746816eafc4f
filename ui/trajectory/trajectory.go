// Package trajectory renders the blocks of a run for the TUI. The events
// are folded into blocks by engine/fold (shared with the Markdown export);
// the names below are that fold's, so a live run and a replayed session go
// through the same code: events in, blocks out.
package trajectory

import "github.com/prefrag/prefrag/engine/fold"

type (
	// Kind tells a reasoning step from a reflection supplement.
	Kind = fold.Kind
	// Retrieval is one search actually performed.
	Retrieval = fold.Retrieval
	// Block is one visible unit of the trajectory.
	Block = fold.Block
	// TraceItem is one retrieval, selection or error of the retrieval phase.
	TraceItem = fold.TraceItem
	// Live is the text streaming in for a step.
	Live = fold.Live
	// Trajectory is the folded state of one session.
	Trajectory = fold.Trajectory
	// ContextDoc is a document in the reasoning context and its number.
	ContextDoc = fold.ContextDoc
)

const (
	// KindStep is one Thought / Action / Observation (or Final Answer) turn.
	KindStep = fold.KindStep
	// KindSupplement is the reflection's multi-source retrieval.
	KindSupplement = fold.KindSupplement
	// KindNote is a gate, rewrite or refinement outside the steps.
	KindNote = fold.KindNote
)

// New returns an empty trajectory.
func New() *Trajectory { return fold.New() }

// FromEvents folds stored events into a trajectory.
var FromEvents = fold.FromEvents
