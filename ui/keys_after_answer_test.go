package ui

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

// Keys typed the moment an answer is on screen act as typed, whatever
// the run still delivers around them: the batch that ends the stream, a
// pending refresh tick, the clock, the question box's flush tick. Tab
// gives the trajectory the focus, g goes to its top, f pages down from
// there; nothing that arrives later scrolls the view back to the bottom
// (where a live run's view follows new lines).
func TestKeysRightAfterAnAnswerActAsTyped(t *testing.T) {
	keys := []string{"tab", "g", "f"}
	for _, order := range interleavings(len(afterAnswer(0)), len(keys)) {
		m, id := answered(t)
		page := m.ask.tv.pager.Height() - 1
		if n := len(m.ask.tv.pager.Lines()); n < 2*m.ask.tv.pager.Height() {
			t.Fatalf("setup: %d lines in a pane of %d: too short to tell the top from the bottom", n, page+1)
		}
		late := afterAnswer(id)
		ri, ki := 0, 0
		for _, isKey := range order.slots {
			var msg tea.Msg
			if isKey {
				msg, ki = keyMsg(keys[ki]), ki+1
			} else {
				msg, ri = late[order.perm[ri]], ri+1
			}
			// The commands Update returns are not run: their results
			// are what late delivers, in every order.
			m.Update(msg)
		}
		p := &m.ask.tv.pager
		if m.ask.typing || p.Offset() != page || p.Following() {
			t.Fatalf("order %s: typing %v, offset %d following %v; want the trajectory focused, one page (%d) below its top, not following",
				order, m.ask.typing, p.Offset(), p.Following(), page)
		}
		if got := inputText(m); got != "" {
			t.Fatalf("order %s: the question box holds %q", order, got)
		}
	}
}

// answered is the root model right after a scripted run's last batch:
// the answer is on screen, the input offers a follow-up, and the view
// follows the bottom. It returns the run's stream id.
func answered(t *testing.T) (*Model, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st := scripted.Settings()
	st.Corpora = nil
	tr := &threadRunner{scriptRunner: newScriptRunner()}
	m := New(ctx, Deps{Runner: tr, Sessions: newFakeSessions(), Corpora: newFakeCorpora(false), Health: fakeHealth{}},
		Options{Settings: st, WorkDir: testWorkDir, NoColor: true, Now: newClock().Now})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	drain(t, m, m.Init())
	m.ask.input.SetValue("Where was Kafka born?")
	m.Update(keyMsg("enter"))
	if !m.ask.running {
		t.Fatal("setup: the question did not start")
	}
	id := m.ask.run.id
	var msgs []tea.Msg
	for _, ev := range tr.events {
		msgs = append(msgs, runEventMsg{ev: ev})
	}
	m.Update(batchMsg{stream: id, msgs: append(msgs, runDoneMsg{})})
	if m.ask.running || m.ask.fu.id == "" || !m.ask.typing || !m.ask.tv.pager.Following() {
		t.Fatalf("setup: running %v thread %q typing %v following %v; want the answer in, follow-up offered, the input focused",
			m.ask.running, m.ask.fu.id, m.ask.typing, m.ask.tv.pager.Following())
	}
	return m, id
}

// afterAnswer is what a run still delivers once its answer is in.
func afterAnswer(id int) []tea.Msg {
	return []tea.Msg{
		batchMsg{stream: id, done: true}, // the stream's end
		refreshMsg{stream: id},
		clockMsg{stream: id},
		typedFlushMsg{},
	}
}
