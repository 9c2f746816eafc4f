package ui

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
)

// A question asked right after another must stream live even when the
// previous run's refresh tick has not arrived yet (it carries the old
// stream's id and is ignored).
func TestNewRunStreamsDespitePendingTickOfPreviousRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, Deps{Runner: newScriptRunner(), Sessions: newFakeSessions(), Corpora: newFakeCorpora(false), Health: fakeHealth{}},
		Options{WorkDir: testWorkDir, NoColor: true, Now: newClock().Now})
	a := m.ask
	token := func(text string) tea.Msg {
		return runEventMsg{ev: engine.Event{Step: 1, Payload: engine.Token{Text: text}}}
	}

	a.start("first question")
	first := a.run.id
	a.handleRun(batchMsg{stream: first, msgs: []tea.Msg{token("thinking ")}})
	if !a.tickPending {
		t.Fatal("a token batch must schedule a refresh tick")
	}
	a.handleRun(batchMsg{stream: first, msgs: []tea.Msg{runDoneMsg{}}})
	if a.running {
		t.Fatal("the first run did not finish")
	}

	a.start("second question")
	if a.tickPending {
		t.Fatal("the new run inherited the previous run's pending tick: its tokens would never be drawn")
	}
	a.handleRun(batchMsg{stream: a.run.id, msgs: []tea.Msg{token("again ")}})
	if !a.tickPending || !a.dirty {
		t.Fatalf("the new run's tokens scheduled no refresh (pending %v, dirty %v)", a.tickPending, a.dirty)
	}
	a.update(refreshMsg{stream: first}) // the stale tick: ignored
	if !a.dirty {
		t.Fatal("a stale tick refreshed the new run")
	}
	a.update(refreshMsg{stream: a.run.id})
	if a.dirty || a.tickPending {
		t.Fatal("the new run's tick did not refresh it")
	}
}
