package export

import (
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/engine/fold"
)

// The payloads of a folded block, read in one place: the HTML report
// reads blocks through these (when the shape of the fold's blocks
// changes, this file is what follows it).

func blockObservation(b *fold.Block) (engine.Observation, bool) {
	if b.Observation == nil {
		return engine.Observation{}, false
	}
	return *b.Observation, true
}

func blockSupplement(b *fold.Block) (engine.Supplement, bool) {
	if b.Supplement == nil {
		return engine.Supplement{}, false
	}
	return *b.Supplement, true
}

func blockAnswer(b *fold.Block) (engine.Answer, bool) {
	if b.Answer == nil {
		return engine.Answer{}, false
	}
	return *b.Answer, true
}

// traceSelection is a trace item's judge decision.
func traceSelection(item fold.TraceItem) (engine.Selection, bool) {
	if item.Selection == nil {
		return engine.Selection{}, false
	}
	return *item.Selection, true
}

// selectionSeq is the seq of the block's k-th judge decision (an analyst's
// verdict refers to it), 0 when there is none.
func selectionSeq(b *fold.Block, k int) int {
	if k < 0 || k >= len(b.Selections) {
		return 0
	}
	return b.Selections[k].Seq
}

func traceNotice(item fold.TraceItem) (htmlNotice, bool) {
	if item.Error == nil {
		return htmlNotice{}, false
	}
	return noticeOf(*item.Error), true
}

func blockNotices(b *fold.Block) []htmlNotice {
	var out []htmlNotice
	for _, n := range b.Errors {
		out = append(out, noticeOf(n))
	}
	return out
}

// trajectoryNotices are the notices outside every block.
func trajectoryNotices(tr *fold.Trajectory) []htmlNotice {
	var out []htmlNotice
	for _, n := range tr.Errors {
		out = append(out, noticeOf(n))
	}
	return out
}

// notePayload is a note block's payload (a Gate, Rewrite or Refinement).
func notePayload(b *fold.Block) engine.Payload {
	if b.Note == nil {
		return nil
	}
	return b.Note.Payload
}

// finalTime is when the report's final answer was given (ages of cached
// results count to it).
func (r *report) finalTime() time.Time {
	return r.finalAt
}
