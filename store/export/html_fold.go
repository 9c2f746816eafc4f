package export

import (
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/engine/fold"
)

// The payloads of a folded block, read in one place: the HTML report
// reads blocks through these and never an event's flat fields (when the
// event's shape changes, this file is what follows it).

func blockObservation(b *fold.Block) (engine.Observation, bool) {
	if b.Observation == nil {
		return engine.Observation{}, false
	}
	p, ok := b.Observation.Payload().(engine.Observation)
	return p, ok
}

func blockSupplement(b *fold.Block) (engine.Supplement, bool) {
	if b.Supplement == nil {
		return engine.Supplement{}, false
	}
	p, ok := b.Supplement.Payload().(engine.Supplement)
	return p, ok
}

func blockAnswer(b *fold.Block) (engine.Answer, bool) {
	if b.Answer == nil {
		return engine.Answer{}, false
	}
	p, ok := b.Answer.Payload().(engine.Answer)
	return p, ok
}

// traceSelection is a trace item's judge decision.
func traceSelection(item fold.TraceItem) (engine.Selection, bool) {
	if item.Selection == nil {
		return engine.Selection{}, false
	}
	p, ok := item.Selection.Payload().(engine.Selection)
	return p, ok
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
	p, _ := item.Error.Payload().(engine.Notice)
	return noticeOf(p), true
}

func blockNotices(b *fold.Block) []htmlNotice {
	var out []htmlNotice
	for _, ev := range b.Errors {
		p, _ := ev.Payload().(engine.Notice)
		out = append(out, noticeOf(p))
	}
	return out
}

// trajectoryNotices are the notices outside every block.
func trajectoryNotices(tr *fold.Trajectory) []htmlNotice {
	var out []htmlNotice
	for _, ev := range tr.Errors {
		p, _ := ev.Payload().(engine.Notice)
		out = append(out, noticeOf(p))
	}
	return out
}

// notePayload is a note block's payload (a Gate, Rewrite or Refinement).
func notePayload(b *fold.Block) engine.Payload {
	if b.Note == nil {
		return nil
	}
	return b.Note.Payload()
}

// finalTime is when the report's final answer was given (ages of cached
// results count to it).
func (r *report) finalTime() time.Time {
	if r.final == nil {
		return time.Time{}
	}
	return r.final.Time
}
