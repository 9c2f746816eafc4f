package engine

// TurnOf is the turn an event belongs to: its turn field, 1 when omitted
// (CONTRACT.md: events of the first turn may omit it).
func TurnOf(ev Event) int {
	if ev.Turn > 1 {
		return ev.Turn
	}
	return 1
}

// ThreadFrom builds the thread a follow-up of a stored session continues
// from its events: the earlier turns' standalone questions (the session's
// question, then each rewrite) and final answers, and every document the
// context held, under the number it had. It returns nil for no events.
func ThreadFrom(events []Event) *Thread {
	if len(events) == 0 {
		return nil
	}
	b := threadBuilder{
		th:        &Thread{},
		byNum:     map[int]Document{},
		retrieved: map[turnDoc][]Document{},
		turns:     map[int]*PriorTurn{},
	}
	for _, ev := range events {
		b.apply(ev)
	}
	return b.thread()
}

// turnDoc names a document a turn retrieved.
type turnDoc struct {
	turn int
	id   string
}

// threadBuilder is ThreadFrom's state while it reads the events.
type threadBuilder struct {
	th *Thread
	// byNum are the documents of the context by their number; maxNum is
	// the highest number seen.
	byNum  map[int]Document
	maxNum int
	// retrieved are the documents each turn retrieved, to resolve the ids
	// of observations.
	retrieved map[turnDoc][]Document
	turns     map[int]*PriorTurn
	last      int // the highest turn seen
}

// apply reads one event into its turn.
func (b *threadBuilder) apply(ev Event) {
	t := TurnOf(ev)
	b.last = max(b.last, t)
	b.th.LastSeq = max(b.th.LastSeq, ev.Seq)
	pt := b.turns[t]
	if pt == nil {
		pt = &PriorTurn{}
		b.turns[t] = pt
	}
	switch p := ev.Payload.(type) {
	case SessionStart:
		pt.Question = p.Question
		switch {
		case p.Privacy != nil:
			b.th.keepPrivacy(*p.Privacy)
		case p.Config != nil:
			b.th.keepPrivacy(settingsPrivacy(p.Config.Settings))
		}
	case Rewrite:
		pt.Question = p.Rewritten
		if p.Privacy != nil {
			b.th.keepPrivacy(*p.Privacy)
		}
	case Answer:
		pt.Answer, pt.Label = p.Text, p.Label
	case Final:
		pt.Answer, pt.Label = p.Answer, p.Label
		pt.Cited = append([]int(nil), p.Citations...)
		for i, d := range p.Sources {
			if i < len(p.SourceNums) {
				b.put(p.SourceNums[i], d)
			}
		}
	case Evidence:
		// The answer's supporting sentences, as stored: a thread
		// continued in a new process carries them too.
		pt.Quotes = p.Quotes()
	case Retrieval:
		for _, d := range p.Docs {
			k := turnDoc{t, d.ID}
			b.retrieved[k] = append(b.retrieved[k], d)
		}
	case Observation:
		b.place(t, p.DocIDs, p.DocNums, true, p.Source)
	case Supplement:
		b.place(t, p.DocIDs, p.DocNums, false, "")
	case Thought, Action, Selection, Gate, Refinement, ThreadContext, Notice, Token:
		// Nothing a later turn carries.
	}
}

// put keeps d under number n, unless a document with text holds it.
func (b *threadBuilder) put(n int, d Document) {
	if n < 1 {
		return
	}
	if have, ok := b.byNum[n]; !ok || have.Text == "" {
		b.byNum[n] = d
	}
	b.maxNum = max(b.maxNum, n)
}

// place numbers the documents turn t observed (ids with their nums): each
// the copy the turn retrieved, from source when bySource.
func (b *threadBuilder) place(t int, ids []string, nums []int, bySource bool, source string) {
	for i, id := range ids {
		if i >= len(nums) {
			break
		}
		cands := b.retrieved[turnDoc{t, id}]
		if len(cands) == 0 {
			continue
		}
		d := cands[0]
		for _, c := range cands {
			if bySource && c.Source == source {
				d = c
				break
			}
		}
		b.put(nums[i], d)
	}
}

// thread is the thread read so far: the documents in number order and the
// turns in turn order.
func (b *threadBuilder) thread() *Thread {
	th := b.th
	for n := 1; n <= b.maxNum; n++ {
		d, ok := b.byNum[n]
		if !ok {
			// A number whose document no event kept: hold its place so the
			// numbers after it stay right.
			d = Document{ID: "", Title: "(not recorded)"}
		}
		th.Docs = append(th.Docs, d)
	}
	for t := 1; t <= b.last; t++ {
		if pt := b.turns[t]; pt != nil {
			th.Turns = append(th.Turns, *pt)
		}
	}
	th.Turn = b.last + 1
	return th
}

// keepPrivacy makes the thread's privacy at least as strict as a turn's.
func (th *Thread) keepPrivacy(p Privacy) {
	if th.Privacy == nil {
		th.Privacy = &Privacy{}
	}
	th.Privacy.tighten(p)
}
