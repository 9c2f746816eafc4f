package fold

import "github.com/prefrag/prefrag/engine"

// Apply folds one event in: the bookkeeping every event shares, then the
// fold of its payload type (one method each, below).
func (t *Trajectory) Apply(ev engine.Event) {
	if tok, ok := ev.Payload.(engine.Token); ok {
		t.applyToken(ev.Step, tok)
		return
	}
	t.Events = append(t.Events, ev)
	t.version++
	if t.Session == "" {
		t.Session = ev.Session
	}
	t.enterTurn(ev)
	switch p := ev.Payload.(type) {
	case engine.SessionStart:
		t.applyStart(ev, p)
	case engine.Thought:
		t.applyThought(ev.Step, p)
	case engine.Action:
		t.applyAction(ev.Step, p)
	case engine.Retrieval:
		t.applyRetrieval(ev, p)
	case engine.Selection:
		t.applySelection(ev, p)
	case engine.Observation:
		b := t.forStep(ev.Step)
		b.Observation, b.obsSeq = &p, ev.Seq
		b.version++
	case engine.Answer:
		t.applyAnswer(ev.Step, p)
	case engine.Supplement:
		t.applySupplement(ev, p)
	case engine.Gate, engine.Rewrite, engine.Refinement, engine.ThreadContext:
		e := ev
		t.Blocks = append(t.Blocks, &Block{Kind: KindNote, Step: ev.Step, Turn: engine.TurnOf(ev), Note: &e})
	case engine.Evidence:
		t.Evidence, t.turn().Evidence = &p, &p
	case engine.Final:
		t.clearLive()
		t.Final, t.FinalAt = &p, ev.Time
		t.turn().Final, t.turn().FinalAt = &p, ev.Time
	case engine.Notice:
		t.applyNotice(ev.Step, p)
	case engine.Token:
		// Folded above (applyToken): never kept as an event.
	}
}

func (t *Trajectory) applyStart(ev engine.Event, p engine.SessionStart) {
	t.Question = p.Question
	t.Config = p.Config
	t.Started = ev.Time
	t.turn().Question = p.Question
}

// applyThought opens a step block unless the last one is this step's and
// has nothing after its thought yet.
func (t *Trajectory) applyThought(step int, p engine.Thought) {
	t.clearLive()
	b := t.last()
	if b == nil || b.Kind != KindStep || b.Step != step || b.Thought != "" || b.HasAction || b.Answer != nil {
		b = t.add(KindStep, step)
	}
	b.Thought, b.ThoughtRole = p.Text, p.Role
	b.version++
}

// applyAction joins the step's thought, or opens a block of its own.
func (t *Trajectory) applyAction(step int, p engine.Action) {
	t.clearLive()
	b := t.last()
	if b == nil || b.Kind != KindStep || b.Step != step || b.HasAction || b.Answer != nil {
		b = t.add(KindStep, step)
	}
	b.HasAction, b.Tool, b.Query = true, p.Tool, p.Query
	b.version++
}

// applyRetrieval records a search in the block it belongs to: the current
// step's, or a supplement after an answer.
func (t *Trajectory) applyRetrieval(ev engine.Event, p engine.Retrieval) {
	for _, d := range p.Docs {
		t.docs[d.ID] = d
	}
	b := t.last()
	if b == nil || (b.Kind == KindStep && (b.Answer != nil || b.Observation != nil)) || (b.Kind == KindSupplement && b.Supplement != nil) {
		// A search after an answer is the reflection's supplement; one
		// after a finished observation without a new action is treated
		// the same way rather than being lost.
		kind := KindSupplement
		if b == nil || b.Answer == nil {
			kind = KindStep
		}
		b = t.add(kind, ev.Step)
	}
	b.Retrievals = append(b.Retrievals, Retrieval{Source: p.Source, Query: p.Query, Docs: p.Docs, Outcome: p.Outcome, Note: p.Note, At: ev.Time, Cached: p.Cached})
	r := b.Retrievals[len(b.Retrievals)-1]
	b.Trace = append(b.Trace, TraceItem{Retrieval: &r})
	b.version++
}

func (t *Trajectory) applySelection(ev engine.Event, p engine.Selection) {
	t.clearLive()
	b := t.forStep(ev.Step)
	b.Selections = append(b.Selections, Decision{Seq: ev.Seq, Selection: p})
	b.Trace = append(b.Trace, TraceItem{Selection: &p})
	b.version++
}

// applyAnswer closes the step's block, or opens one when the last block is
// another step's or already answered or observed.
func (t *Trajectory) applyAnswer(step int, p engine.Answer) {
	t.clearLive()
	b := t.last()
	if b == nil || b.Kind != KindStep || b.Step != step || b.Answer != nil || b.Observation != nil {
		b = t.add(KindStep, step)
	}
	b.Answer = &p
	b.version++
}

func (t *Trajectory) applySupplement(ev engine.Event, p engine.Supplement) {
	b := t.last()
	if b == nil || b.Kind != KindSupplement || b.Supplement != nil {
		b = t.add(KindSupplement, ev.Step)
	}
	b.Supplement, b.supSeq = &p, ev.Seq
	b.version++
}

// applyNotice shows an error in the block of its step (in the trace when a
// search went wrong), else among the trajectory's own errors.
func (t *Trajectory) applyNotice(step int, p engine.Notice) {
	b := t.last()
	if b == nil || t.Final != nil || (step != 0 && step != b.Step) {
		t.Errors = append(t.Errors, p)
		return
	}
	if len(b.Trace) > 0 && b.Observation == nil && b.Supplement == nil && b.Answer == nil {
		// A search went wrong: show it where it happened.
		b.Trace = append(b.Trace, TraceItem{Error: &p})
	} else {
		b.Errors = append(b.Errors, p)
	}
	b.version++
}
