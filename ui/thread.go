package ui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/ui/internal/termtext"
	"github.com/prefrag/prefrag/ui/trajectory"
)

// Threads: once a run has answered, the ask screen's next question is a
// follow-up in that session's thread (the "follow-up" mode, shown above
// the question input); ctrl+n starts a new thread instead. The stepper's
// f key opens a stored session's thread in the ask screen the same way.

// ThreadRunner is a Runner that can also continue a stored session's
// thread: question is rewritten into a standalone one from the thread and
// answered as its next turn (events carry the turn; see Runner.Run for the
// rest of the contract). The turn keeps the thread's privacy where it is
// stricter than s, except for the settings named in explicit
// (engine.PrivacyWeb: the user changed the web policy for it).
type ThreadRunner interface {
	Continue(ctx context.Context, sessionID, question string, s engine.RunConfig, explicit []string, consent engine.ConsentFunc, emit func(engine.Event)) error
}

// thread is the session the ask screen's next question follows up.
type thread struct {
	id       string
	question string // the thread's first question
	turns    int
	// webMark is shared.webChanges when the thread was taken up: a
	// policy changed (w) since then is the user's choice for the next
	// turn, and may loosen the thread's privacy.
	webMark int
}

// explicitPrivacy names the privacy settings the user changed for the
// next follow-up: the web policy, when w was pressed since the thread's
// last turn.
func (a *askScreen) explicitPrivacy() []string {
	if a.fu.id != "" && a.sh.webChanges != a.fu.webMark {
		return []string{engine.PrivacyWeb}
	}
	return nil
}

// followUpMsg opens a stored session's thread in the ask screen.
type followUpMsg struct {
	id   string
	traj *trajectory.Trajectory
}

// threadRunner is the runner when the next question is a follow-up, else
// nil.
func (a *askScreen) threadRunner() ThreadRunner {
	if a.fu.id == "" {
		return nil
	}
	tr, _ := a.sh.deps.Runner.(ThreadRunner)
	return tr
}

// followAnswered puts the screen in follow-up mode after a run that
// answered (a cancelled or failed run starts no thread).
func (a *askScreen) followAnswered(err error) {
	if err != nil || a.stopping || a.sessionID == "" || a.traj == nil || a.traj.Final == nil || a.traj.Final.Cancelled {
		return
	}
	if _, ok := a.sh.deps.Runner.(ThreadRunner); !ok {
		return
	}
	a.fu = thread{id: a.sessionID, question: a.traj.Question, turns: a.traj.CurrentTurn(), webMark: a.sh.webChanges}
	a.threadChanged()
}

// openThread shows a stored session in the ask screen with the input in
// follow-up mode.
func (a *askScreen) openThread(id string, t *trajectory.Trajectory) tea.Cmd {
	if a.running {
		a.note("A question is still running — Esc cancels it.", true)
		return nil
	}
	a.traj = trajectory.FromEvents(t.Events)
	a.sessionID = id
	a.started, a.ended, a.runErr = a.traj.Started, a.sh.now(), nil
	a.tv.set(a.traj, true)
	a.notice = ""
	a.fu = thread{id: id, question: a.traj.Question, turns: a.traj.CurrentTurn(), webMark: a.sh.webChanges}
	a.threadChanged()
	return a.focusInput()
}

// newThread leaves follow-up mode: the next question starts a session.
func (a *askScreen) newThread() {
	if a.fu.id == "" {
		return
	}
	a.fu = thread{}
	a.threadChanged()
	a.note("New thread: the next question starts a new session.", false)
}

func (a *askScreen) threadChanged() {
	if a.fu.id != "" {
		a.input.Placeholder = "Ask a follow-up…  (Enter sends · ctrl+n: new thread instead)"
	} else {
		a.input.Placeholder = askPlaceholder
	}
	a.inputBoxValid = false
	a.setSize(a.width, a.height)
}

// threadHeight is the height of the follow-up indicator.
func (a *askScreen) threadHeight() int {
	if a.fu.id == "" {
		return 0
	}
	return 1
}

// threadView is the follow-up indicator shown above the question input.
func (a *askScreen) threadView() string {
	st := a.sh.st
	head := st.Warn.Render(fmt.Sprintf(" ↪ follow-up · turn %d", a.fu.turns+1))
	rest := st.Dim.Render(" · ctrl+n new thread · in the thread of “" + termtext.Line(a.fu.question) + "”")
	return truncateTo(head+rest, a.width)
}

// startFollowUp runs question as the next turn of session id.
func startFollowUp(ctx context.Context, r ThreadRunner, id string, s *stream, question string, set engine.RunConfig, explicit []string, policy policyFunc) {
	startRunFunc(s, policy, func(consent engine.ConsentFunc, emit func(engine.Event)) error {
		return r.Continue(ctx, id, question, set, explicit, consent, emit)
	})
}

// turnStop names a stepper stop in a thread: "turn 2 · step 1".
func turnStop(t *trajectory.Trajectory, turn int, where string) string {
	if len(t.Turns) < 2 {
		return where
	}
	return fmt.Sprintf("turn %d/%d · %s", max(turn, 1), len(t.Turns), where)
}
