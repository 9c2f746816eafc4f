package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
	"github.com/prefrag/prefrag/ui/trajectory"
)

// twoTurns is the scripted session (turn 1: 3 local, 2 web, 3 used, 18.2 s)
// followed up by a short turn 2 (1 local, 0 web, 1 used, 2.2 s) that ended
// 40 s after the thread began.
func twoTurns() []engine.Event {
	evs := scripted.Stored(testStart)
	seq := evs[len(evs)-1].Seq
	at := testStart.Add(40 * time.Second)
	doc := engine.Document{ID: "wiki:kafka#1", Title: "Franz Kafka", Text: "Born 1883.", Source: "local:wiki"}
	for _, ev := range []engine.Event{
		engine.Event{Payload: engine.Rewrite{Original: "and when?", Rewritten: "When was Franz Kafka born?"}},
		engine.Event{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "Kafka born"}},
		engine.Event{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "Kafka born", Docs: []engine.Document{doc}}},
		engine.Event{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{doc.ID}, DocNums: []int{1}}},
		engine.Event{Payload: engine.Final{Answer: "In 1883 [1].", Label: "CORRECT", Citations: []int{1}, Counts: &engine.Counts{LLMCalls: 3, LocalRetrievals: 1, UsedRetrievals: 1, OutputTokens: 50, LLMMillis: 2000, TotalMillis: 2200}}},
	} {
		seq++
		ev.Seq, ev.Turn, ev.Time, ev.Session = seq, 2, at, scripted.SessionID
		evs = append(evs, ev)
	}
	return evs
}

// Each view of a thread says whose figures it shows: the stepper's status
// line those of the turn on screen, labelled "turn N/M" (it showed turn 2's
// counts on turn 1), and the ask screen with a stored thread open the last
// turn's own time, not the time since the thread began.
func TestStatusLineShowsTheTurnOnScreen(t *testing.T) {
	m := New(context.Background(), Deps{}, Options{Settings: scripted.Settings(), NoColor: true, Now: func() time.Time { return testStart.Add(time.Hour) }})
	m.resize(160, 30)
	tr := trajectory.FromEvents(twoTurns())
	m.screen = screenStepper
	m.stepper.traj = tr
	m.stepper.pos = 1 // turn 1, step 1
	s := ansi.Strip(m.statusView())
	for _, want := range []string{"turn 1/2", "steps 3/3", "0:18", "searches 3 local · 2 web · 3 used"} {
		if !strings.Contains(s, want) {
			t.Errorf("stepper on turn 1: status lacks %q: %q", want, s)
		}
	}
	m.stepper.pos = len(tr.Blocks) + 1 // the final answer of turn 2
	s = ansi.Strip(m.statusView())
	for _, want := range []string{"turn 2/2", "steps 1/3", "0:02", "searches 1 local · 0 web · 1 used"} {
		if !strings.Contains(s, want) {
			t.Errorf("stepper on turn 2: status lacks %q: %q", want, s)
		}
	}

	// The thread opened in the ask screen: turn 2's own time.
	m.screen = screenAsk
	m.ask.openThread(scripted.SessionID, tr)
	s = ansi.Strip(m.statusView())
	for _, want := range []string{"turn 2/2", "0:02", "searches 1 local · 0 web · 1 used"} {
		if !strings.Contains(s, want) {
			t.Errorf("ask screen with the thread open: status lacks %q: %q", want, s)
		}
	}
	if strings.Contains(s, "1:00:00") {
		t.Errorf("ask screen shows the time since the thread began: %q", s)
	}

	// A single question has no turn label.
	m.stepper.traj = trajectory.FromEvents(scripted.Stored(testStart))
	m.screen = screenStepper
	if s := ansi.Strip(m.statusView()); strings.Contains(s, "turn") {
		t.Errorf("a single question's status names a turn: %q", s)
	}
}

// Indexing in the workspace says how many exports it skipped.
func TestIndexMessageCountsSkippedExports(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{NoColor: true})
	c := newCorporaScreen(sh)
	c.setSize(100, 20)
	c.indexDone(indexDoneMsg{corpus: "notes", rep: IndexReport{Files: 3, Indexed: 1, Exports: 2, Passages: 4}})
	if !strings.Contains(c.message, "Skipped 2 files prefrag exported") {
		t.Errorf("index message %q", c.message)
	}
	c.indexDone(indexDoneMsg{corpus: "notes", rep: IndexReport{Files: 1, Indexed: 1, Passages: 4}})
	if strings.Contains(c.message, "Skipped") {
		t.Errorf("index message %q", c.message)
	}
}

// TestStatusLineShowsTheThreadsStricterWeb: while a follow-up runs under
// its thread's stricter web policy (kept from an earlier turn), the status
// line shows that policy, not the app's; once it ended, the app's policy
// (the next question's) is back.
func TestStatusLineShowsTheThreadsStricterWeb(t *testing.T) {
	for _, tc := range []struct {
		app, turn, want string
	}{
		{engine.WebAuto, engine.WebNever, "web never (thread)"},
		{engine.WebAsk, engine.WebNever, "web never (thread)"},
		{engine.WebAuto, engine.WebAsk, "web ask (thread)"},
		{engine.WebNever, engine.WebAuto, "web never"},
		{engine.WebAuto, engine.WebAuto, "web auto"},
	} {
		set := scripted.Settings()
		set.Web = tc.app
		set.Corpora = []string{"wiki"}
		m := New(context.Background(), Deps{}, Options{Settings: set, NoColor: true, Now: func() time.Time { return testStart.Add(time.Minute) }})
		m.resize(200, 30)
		evs := scripted.Stored(testStart)
		evs = append(evs, engine.Event{Seq: evs[len(evs)-1].Seq + 1, Turn: 2, Session: scripted.SessionID, Time: testStart.Add(40 * time.Second),
			Payload: engine.Rewrite{Original: "and when?", Rewritten: "When was Franz Kafka born?", Privacy: &engine.Privacy{Web: tc.turn, Kept: []string{engine.PrivacyWeb}}}})
		m.screen = screenAsk
		m.ask.traj, m.ask.running, m.ask.started = trajectory.FromEvents(evs), true, testStart
		s := ansi.Strip(m.statusView())
		if !strings.Contains(s, tc.want) || (!strings.Contains(tc.want, "thread") && strings.Contains(s, "(thread)")) {
			t.Errorf("app %s, turn %s: status %q, want %q", tc.app, tc.turn, s, tc.want)
		}
		m.ask.running = false
		if s := ansi.Strip(m.statusView()); !strings.Contains(s, "web "+tc.app) || strings.Contains(s, "(thread)") {
			t.Errorf("app %s, turn %s, ended: status %q", tc.app, tc.turn, s)
		}
	}
}
