package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/ui/trajectory"
)

// stepperScreen replays a stored session through the same renderer as a
// live run, one step at a time: at each step it shows what the model had
// in context, which documents were retrieved and which the switch
// discarded, and the judge's reasoning.
type stepperScreen struct {
	sh   *shared
	keys stepperKeys
	tv   *trajView

	id      string
	traj    *trajectory.Trajectory
	pos     int // 1-based stop: a block, or the final answer after the last block
	loading bool
	err     error
	// note reports the last verdict saved (or why it was not).
	note string

	goBack        bool
	width, height int
}

type eventsMsg struct {
	id  string
	evs []engine.Event
	err error
}

// verdictMsg is the result of saving a verdict on a judge decision.
type verdictMsg struct {
	id      string
	step    int
	verdict string
	err     error
}

func newStepperScreen(sh *shared) *stepperScreen {
	return &stepperScreen{sh: sh, keys: newStepperKeys(), tv: newTrajView(sh)}
}

func (s *stepperScreen) restyle()       { s.tv.restyle() }
func (s *stepperScreen) isTyping() bool { return false }

func (s *stepperScreen) back() bool {
	b := s.goBack
	s.goBack = false
	return b
}

func (s *stepperScreen) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case eventsMsg, verdictMsg:
		return true
	}
	return false
}

func (s *stepperScreen) setSize(w, h int) {
	s.width, s.height = w, h
	s.tv.setSize(w, max(h-2, 1))
	s.show()
}

// load fetches a session's events.
func (s *stepperScreen) load(id string) tea.Cmd {
	s.id, s.traj, s.pos, s.err, s.loading, s.note = id, nil, 0, nil, true, ""
	s.tv.set(nil, false)
	src := s.sh.deps.Sessions
	if src == nil {
		s.loading, s.err = false, fmt.Errorf("no session store is configured")
		return nil
	}
	ctx := s.sh.ctx
	return func() tea.Msg {
		evs, err := src.Events(ctx, id)
		return eventsMsg{id: id, evs: evs, err: err}
	}
}

// stops is the number of positions: every block, then the final answer.
func (s *stepperScreen) stops() int {
	if s.traj == nil {
		return 0
	}
	n := len(s.traj.Blocks)
	if s.traj.Final != nil || len(s.traj.Errors) > 0 {
		n++
	}
	return n
}

func (s *stepperScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case eventsMsg:
		if msg.id != s.id {
			return nil
		}
		s.loading, s.err = false, msg.err
		if msg.err != nil {
			return nil
		}
		s.traj = trajectory.FromEvents(msg.evs)
		s.pos = min(1, s.stops())
		s.tv.set(s.traj, false)
		s.show()
		return nil
	case verdictMsg:
		if msg.id != s.id {
			return nil
		}
		if msg.err != nil {
			s.note = "✗ verdict not saved: " + oneLine(msg.err.Error())
		} else {
			s.note = fmt.Sprintf("saved: the judge of step %d was %s (exported with --format pairs)", msg.step, msg.verdict)
		}
		return nil
	case tea.MouseWheelMsg:
		s.tv.update(msg)
	case tea.KeyPressMsg:
		if s.tv.modal() {
			s.tv.update(msg)
			return nil
		}
		switch {
		case key.Matches(msg, s.keys.Back):
			s.goBack = true
		case key.Matches(msg, s.keys.Next):
			s.goTo(s.pos + 1)
		case key.Matches(msg, s.keys.Prev):
			s.goTo(s.pos - 1)
		case key.Matches(msg, s.keys.First):
			s.goTo(1)
		case key.Matches(msg, s.keys.Last):
			s.goTo(s.stops())
		case key.Matches(msg, s.keys.Reask):
			if s.traj != nil && s.traj.Question != "" {
				s.sh.open(reaskMsg{question: s.traj.Question})
			}
		case key.Matches(msg, s.keys.Follow):
			if s.traj != nil && s.id != "" {
				s.sh.open(followUpMsg{id: s.id, traj: s.traj})
			}
		case key.Matches(msg, s.keys.Export):
			if s.id != "" {
				s.sh.open(openExportMsg{ids: []string{s.id}})
			}
		case key.Matches(msg, s.keys.Agree):
			return s.verdict(VerdictCorrect)
		case key.Matches(msg, s.keys.Object):
			return s.verdict(VerdictIncorrect)
		default:
			s.tv.update(msg)
		}
	}
	return nil
}

// verdict records the analyst's verdict on the judge decision of the
// current step (its last one, when a step had several).
func (s *stepperScreen) verdict(v string) tea.Cmd {
	if s.traj == nil || s.pos < 1 || s.pos > len(s.traj.Blocks) || len(s.traj.Blocks[s.pos-1].Selections) == 0 {
		s.note = "this step has no judge decision to agree or disagree with"
		return nil
	}
	src := s.sh.deps.Sessions
	if src == nil {
		return nil
	}
	b := s.traj.Blocks[s.pos-1]
	sel := b.Selections[len(b.Selections)-1]
	ctx, id, step := s.sh.ctx, s.id, b.Step
	return func() tea.Msg {
		return verdictMsg{id: id, step: step, verdict: v, err: src.Verdict(ctx, id, sel.Seq, v)}
	}
}

func (s *stepperScreen) goTo(pos int) {
	if s.traj == nil {
		return
	}
	pos = min(max(pos, 1), s.stops())
	if pos == s.pos {
		return
	}
	s.pos = pos
	s.note = ""
	s.show()
}

// show renders the trajectory up to the current stop, the current block in
// detail, and scrolls it to the top of the pane.
func (s *stepperScreen) show() {
	if s.traj == nil {
		return
	}
	n := len(s.traj.Blocks)
	if s.pos <= n {
		s.tv.upto, s.tv.detail = s.pos, true
	} else {
		s.tv.upto, s.tv.detail = -1, false
	}
	s.tv.refresh()
	switch {
	case s.pos <= n && s.pos >= 1 && s.pos-1 < len(s.tv.out.BlockLine):
		s.tv.pager.StartAt(s.tv.out.BlockLine[s.pos-1] + 1)
	case s.tv.out.FinalLine >= 0:
		s.tv.pager.StartAt(s.tv.out.FinalLine + 1)
	}
}

func (s *stepperScreen) view() string {
	st := s.sh.st
	var head string
	switch {
	case s.loading:
		head = st.Dim.Render(" Loading session " + s.sh.shortID(s.id) + "…")
	case s.err != nil:
		head = st.Error.Render(" ✗ " + oneLine(s.err.Error()))
	case s.traj == nil:
		head = st.Dim.Render(" No session open.")
	default:
		where := "final answer"
		turn := s.traj.CurrentTurn()
		if s.pos <= len(s.traj.Blocks) && s.pos >= 1 {
			b := s.traj.Blocks[s.pos-1]
			where, turn = fmt.Sprintf("step %d", b.Step), b.Turn
			switch {
			case b.Kind == trajectory.KindSupplement:
				where = "reflection supplement"
			case b.Kind == trajectory.KindNote && b.Note != nil:
				where = noteStop(b.Note.Payload)
			}
		}
		where = turnStop(s.traj, turn, where)
		head = st.Bold.Render(fmt.Sprintf(" %d/%d", s.pos, s.stops())) + st.Dim.Render(" · "+where+" · ") +
			st.Text.Render(oneLine(s.traj.Question))
	}
	sub := ""
	if s.note != "" {
		sub = st.Dim.Render(" " + s.note)
	}
	return strings.Join([]string{truncateTo(head, s.width), truncateTo(sub, s.width), s.tv.view()}, "\n")
}

func (s *stepperScreen) bindings() []keyGroup {
	if s.tv.modal() {
		return []keyGroup{{"Cited passage", s.tv.pkeys.bindings()}}
	}
	return []keyGroup{{"Stepper", s.keys.bindings()}, {"Trajectory", s.tv.keys.bindings()}}
}

func (s *stepperScreen) shortHelp() []key.Binding {
	if s.tv.modal() {
		return []key.Binding{s.tv.pkeys.Close, s.tv.pkeys.NextClaim, s.tv.pkeys.PrevClaim, s.tv.pkeys.Down}
	}
	if len(s.tv.claims()) > 0 {
		return []key.Binding{s.keys.Next, s.keys.Prev, s.tv.keys.NextClaim, s.tv.keys.Open, s.tv.keys.Toggle, s.keys.Export, s.keys.Back}
	}
	return []key.Binding{s.keys.Next, s.keys.Prev, s.tv.keys.Next, s.tv.keys.Toggle, s.keys.Reask, s.keys.Export, s.keys.Back}
}

// noteStop names a stop of the stepper that is not a step: the retrieval
// gate, a rewritten question, an observation refinement.
func noteStop(p engine.Payload) string {
	switch p.(type) {
	case engine.Gate:
		return "retrieval gate"
	case engine.Rewrite:
		return "rewritten question"
	case engine.Refinement:
		return "observation refinement"
	case engine.ThreadContext:
		return "thread context"
	case nil:
		return ""
	}
	return p.EventType()
}

// busy reports whether the session is still being read: keys wait for
// it (Model.holding).
func (s *stepperScreen) busy() bool { return s.loading }
