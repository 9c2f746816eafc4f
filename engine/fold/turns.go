package fold

import (
	"time"

	"github.com/prefrag/prefrag/engine"
)

// Turn is one question of a session's thread: the first question, or a
// follow-up and the standalone question it was rewritten into.
type Turn struct {
	Number int
	// Question is as asked; Rewritten is the standalone question a
	// follow-up was rewritten into ("" for the first turn).
	Question  string
	Rewritten string
	// Final is the turn's final payload; nil while it runs (or when it
	// failed). FinalAt is its time.
	Final   *engine.Final
	FinalAt time.Time
	// Evidence is the turn's evidence payload (its answer's claims and
	// their quotes); nil without one.
	Evidence *engine.Evidence
	// First is the index in Blocks of the turn's first block.
	First int
}

// enterTurn starts the turn of ev when it is a later one: a follow-up's
// events fold into blocks of their own, and the previous turn's final is
// kept in Turns.
func (t *Trajectory) enterTurn(ev engine.Event) {
	n := engine.TurnOf(ev)
	if n <= t.cur {
		return
	}
	for t.cur < n {
		t.cur++
		t.Turns = append(t.Turns, &Turn{Number: t.cur, First: len(t.Blocks)})
	}
	if n > 1 {
		t.Final, t.Evidence = nil, nil
		t.clearLive()
		t.liveEv = Live{} // steps are numbered per turn
	}
	if rw, ok := ev.Payload.(engine.Rewrite); ok {
		cur := t.turn()
		cur.Question, cur.Rewritten = rw.Original, rw.Rewritten
	}
}

// turn is the current turn (the first one before any event).
func (t *Trajectory) turn() *Turn {
	if len(t.Turns) == 0 {
		t.cur = 1
		t.Turns = append(t.Turns, &Turn{Number: 1})
	}
	return t.Turns[len(t.Turns)-1]
}

// CurrentTurn is the number of the latest turn (1 without follow-ups).
func (t *Trajectory) CurrentTurn() int { return max(t.cur, 1) }

// TurnBlocks returns the blocks of turn n (1-based).
func (t *Trajectory) TurnBlocks(n int) []*Block {
	var out []*Block
	for _, b := range t.Blocks {
		if max(b.Turn, 1) == n {
			out = append(out, b)
		}
	}
	return out
}

// QuestionOf is the question turn n answered: the standalone rewrite of a
// follow-up, the session's question for the first turn.
func (t *Trajectory) QuestionOf(n int) string {
	if n >= 1 && n <= len(t.Turns) {
		tu := t.Turns[n-1]
		if tu.Rewritten != "" {
			return tu.Rewritten
		}
		if tu.Question != "" {
			return tu.Question
		}
	}
	return t.Question
}
