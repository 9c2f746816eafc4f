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
	th := &Thread{}
	byNum := map[int]Document{}
	maxNum := 0
	put := func(n int, d Document) {
		if n < 1 {
			return
		}
		if _, ok := byNum[n]; !ok || byNum[n].Text == "" {
			byNum[n] = d
		}
		maxNum = max(maxNum, n)
	}
	// Documents each turn retrieved, to resolve the ids of observations.
	type key struct {
		turn int
		id   string
	}
	retrieved := map[key][]Document{}
	turnOf := map[int]*PriorTurn{}
	last := 0
	for _, ev := range events {
		t := TurnOf(ev)
		last = max(last, t)
		th.LastSeq = max(th.LastSeq, ev.Seq)
		pt := turnOf[t]
		if pt == nil {
			pt = &PriorTurn{}
			turnOf[t] = pt
		}
		placed := func(ids []string, nums []int, bySource bool, source string) {
			for i, id := range ids {
				if i >= len(nums) {
					break
				}
				cands := retrieved[key{t, id}]
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
				put(nums[i], d)
			}
		}
		switch p := ev.Payload.(type) {
		case SessionStart:
			pt.Question = p.Question
			switch {
			case p.Privacy != nil:
				th.keepPrivacy(*p.Privacy)
			case p.Config != nil:
				th.keepPrivacy(settingsPrivacy(p.Config.Settings))
			}
		case Rewrite:
			pt.Question = p.Rewritten
			if p.Privacy != nil {
				th.keepPrivacy(*p.Privacy)
			}
		case Answer:
			pt.Answer, pt.Label = p.Text, p.Label
		case Final:
			pt.Answer, pt.Label = p.Answer, p.Label
			pt.Cited = append([]int(nil), p.Citations...)
			for i, d := range p.Sources {
				if i < len(p.SourceNums) {
					put(p.SourceNums[i], d)
				}
			}
		case Evidence:
			// The answer's supporting sentences, as stored: a thread
			// continued in a new process carries them too.
			pt.Quotes = p.Quotes()
		case Retrieval:
			for _, d := range p.Docs {
				k := key{t, d.ID}
				retrieved[k] = append(retrieved[k], d)
			}
		case Observation:
			placed(p.DocIDs, p.DocNums, true, p.Source)
		case Supplement:
			placed(p.DocIDs, p.DocNums, false, "")
		case Thought, Action, Selection, Gate, Refinement, ThreadContext, Notice, Token:
			// Nothing a later turn carries.
		}
	}
	for n := 1; n <= maxNum; n++ {
		d, ok := byNum[n]
		if !ok {
			// A number whose document no event kept: hold its place so the
			// numbers after it stay right.
			d = Document{ID: "", Title: "(not recorded)"}
		}
		th.Docs = append(th.Docs, d)
	}
	for t := 1; t <= last; t++ {
		if pt := turnOf[t]; pt != nil {
			th.Turns = append(th.Turns, *pt)
		}
	}
	th.Turn = last + 1
	return th
}

// keepPrivacy makes the thread's privacy at least as strict as a turn's.
func (th *Thread) keepPrivacy(p Privacy) {
	if th.Privacy == nil {
		th.Privacy = &Privacy{}
	}
	th.Privacy.tighten(p)
}
