package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

// These tests drive the root model's Update directly, as the program
// does, but deliver key messages back-to-back without running the
// commands Update returned in between: that is what a fast typist (or
// tmux send-keys) does to the program, whose commands run concurrently
// and whose results queue behind the keys already read. A key that
// opens a dialog or a screen must do so in its own Update, so the keys
// that follow go where the user saw them going.

// cmdBound is how long a command may take before its result is dropped:
// the fakes answer at once, and ticks longer than this (the clock,
// cursor blinks) are not part of what is tested.
const cmdBound = 300 * time.Millisecond

// results runs cmd and what it batches, and returns their messages.
func results(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		if b, ok := msg.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range b {
				out = append(out, results(c)...)
			}
			return out
		}
		if msg == nil {
			return nil
		}
		return []tea.Msg{msg}
	case <-time.After(cmdBound):
		return nil
	}
}

// drain runs cmd and feeds its results to m, and the results of what
// those return, until nothing is left.
func drain(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	queue := results(cmd)
	for i := 0; len(queue) > 0; i++ {
		if i > 500 {
			t.Fatal("commands keep coming")
		}
		msg := queue[0]
		queue = queue[1:]
		_, c := m.Update(msg)
		queue = append(queue, results(c)...)
	}
}

// directModel is the root model over the in-memory services, started
// (Init's results delivered), with no LLM runner.
func directModel(t *testing.T, options ...harnessOption) (*Model, *harness) {
	t.Helper()
	h := &harness{t: t, sessions: newFakeSessions(), corpora: newFakeCorpora(false), clock: newClock(), w: 100, h: 30}
	st := scripted.Settings()
	st.Corpora = nil
	h.opts = Options{Settings: st, WorkDir: testWorkDir, NoColor: true, Now: h.clock.Now}
	deps := Deps{Health: fakeHealth{}}
	for _, o := range options {
		o(h, &deps)
	}
	deps.Sessions, deps.Corpora = h.sessions, h.corpora
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := New(ctx, deps, h.opts)
	m.resize(h.w, h.h)
	return m, h
}

// feed gives m the keys back-to-back and returns the commands it
// returned, not run.
func feed(m *Model, keys ...string) []tea.Cmd {
	var cmds []tea.Cmd
	for _, k := range keys {
		_, c := m.Update(keyMsg(k))
		cmds = append(cmds, c)
	}
	return cmds
}

// inputText is what the question box holds, typed characters included.
func inputText(m *Model) string {
	m.ask.flushTyped()
	return m.ask.input.Value()
}

const secondSession = "5e8a91c0-1111-4a2b-8c3d-000000000002"

func TestKeysAfterADialogGoWhereMeant(t *testing.T) {
	openStepper := func(t *testing.T, m *Model) {
		drain(t, m, tea.Batch(feed(m, "tab", "2")...))
		drain(t, m, tea.Batch(feed(m, "enter")...))
		if m.screen != screenStepper || m.stepper.traj == nil {
			t.Fatalf("setup: the session did not open (screen %d)", m.screen)
		}
	}
	cases := []struct {
		name  string
		setup func(*testing.T, *Model)
		keys  []string
		check func(*testing.T, *Model, *harness)
	}{{
		name: "2 then enter opens the first session of the list",
		keys: []string{"tab", "2", "enter"},
		check: func(t *testing.T, m *Model, _ *harness) {
			if m.screen != screenStepper || m.stepper.id != scripted.SessionID {
				t.Errorf("screen %d, stepper %q; want the stepper on %s", m.screen, m.stepper.id, scripted.SessionID)
			}
		},
	}, {
		name: "2, j, enter opens the second session",
		keys: []string{"tab", "2", "j", "enter"},
		check: func(t *testing.T, m *Model, _ *harness) {
			if m.screen != screenStepper || m.stepper.id != secondSession {
				t.Errorf("screen %d, stepper %q; want the stepper on %s", m.screen, m.stepper.id, secondSession)
			}
		},
	}, {
		name: "2 then x exports the first session",
		keys: []string{"tab", "2", "x"},
		check: func(t *testing.T, m *Model, _ *harness) {
			d, ok := m.dialog.(*exportDialog)
			if !ok || len(d.ids) != 1 || d.ids[0] != scripted.SessionID {
				t.Errorf("dialog %T %+v; want the export dialog of %s", m.dialog, m.dialog, scripted.SessionID)
			}
		},
	}, {
		name:  "x in the stepper opens the export dialog, a is not a verdict",
		setup: openStepper,
		keys:  []string{"x", "a", "d"},
		check: func(t *testing.T, m *Model, h *harness) {
			if _, ok := m.dialog.(*exportDialog); !ok {
				t.Errorf("dialog %T; want the export dialog", m.dialog)
			}
			if len(h.sessions.verdicts) != 0 {
				t.Errorf("keys typed into the dialog recorded verdicts %v", h.sessions.verdicts)
			}
		},
	}, {
		name:  "c in the stepper opens the thread, the follow-up is typed into it",
		setup: openStepper,
		keys:  []string{"c", "w", "h", "y"},
		check: func(t *testing.T, m *Model, _ *harness) {
			if m.screen != screenAsk || !m.ask.typing || m.ask.fu.id != scripted.SessionID {
				t.Errorf("screen %d typing %v thread %q; want the ask screen in the thread", m.screen, m.ask.typing, m.ask.fu.id)
			}
			if got := inputText(m); got != "why" {
				t.Errorf("question box %q, want %q", got, "why")
			}
			if p := m.sh.webPolicy(); p != scripted.Settings().Web {
				t.Errorf("web policy %q: w was taken as the web key", p)
			}
		},
	}, {
		name:  "r in the stepper re-asks, the next key is not a step key",
		setup: openStepper,
		keys:  []string{"end", "r", "home"},
		check: func(t *testing.T, m *Model, _ *harness) {
			if m.screen != screenAsk {
				t.Errorf("screen %d, want the ask screen", m.screen)
			}
			if m.stepper.pos != m.stepper.stops() {
				t.Errorf("stepper at %d of %d: home moved it after the re-ask", m.stepper.pos, m.stepper.stops())
			}
		},
	}, {
		name: "x on the ask screen opens the export dialog, letters go to it",
		setup: func(t *testing.T, m *Model) {
			m.ask.sessionID = scripted.SessionID
			m.ask.blurInput()
		},
		keys: []string{"x", "m", "d"},
		check: func(t *testing.T, m *Model, _ *harness) {
			if _, ok := m.dialog.(*exportDialog); !ok {
				t.Errorf("dialog %T; want the export dialog", m.dialog)
			}
			if got := inputText(m); got != "" {
				t.Errorf("question box %q: keys meant for the dialog were typed into it", got)
			}
		},
	}, {
		name: "q during a run asks, esc keeps the run",
		setup: func(t *testing.T, m *Model) {
			m.ask.blurInput()
			m.ask.running = true
			m.ask.cancel = func() { t.Error("the run was cancelled: esc went to the trajectory") }
		},
		keys: []string{"q", "esc"},
		check: func(t *testing.T, m *Model, _ *harness) {
			if m.dialog != nil || m.quitting {
				t.Errorf("dialog %T quitting %v; want the quit dialog opened and closed", m.dialog, m.quitting)
			}
			m.ask.running, m.ask.cancel = false, nil
		},
	}, {
		name: "1 from the sessions screen, then the question is typed",
		keys: []string{"tab", "2", "1", "h", "i"},
		check: func(t *testing.T, m *Model, _ *harness) {
			if m.screen != screenAsk {
				t.Errorf("screen %d, want ask", m.screen)
			}
			if got := inputText(m); got != "hi" {
				t.Errorf("question box %q, want %q", got, "hi")
			}
		},
	}, {
		name: "? opens the help, esc closes it, 2 switches screen",
		keys: []string{"tab", "?", "esc", "2"},
		check: func(t *testing.T, m *Model, _ *harness) {
			if m.helpOpen || m.screen != screenSessions {
				t.Errorf("help %v screen %d; want the sessions screen", m.helpOpen, m.screen)
			}
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, h := directModel(t)
			drain(t, m, m.Init())
			if c.setup != nil {
				c.setup(t, m)
			}
			cmds := feed(m, c.keys...)
			// Only now do the commands run, their results arriving after
			// every key.
			drain(t, m, tea.Batch(cmds...))
			c.check(t, m, h)
		})
	}
}

// TestFirstRunKeysEveryInterleaving types while the workspace starts: the
// results of the start's commands (the health check, the corpus list that
// decides whether the first-run dialog opens) may arrive before, between
// or after the keys. Whatever the order, the keys end in the same place:
// the dialog's folder field.
func TestFirstRunKeysEveryInterleaving(t *testing.T) {
	cases := []struct {
		name string
		opts []harnessOption
		keys []string
	}{
		{"first-run dialog", []harnessOption{withEmptyCorpora()}, []string{"d", "o", "c"}},
		{"web choice, then the first-run dialog", []harnessOption{withEmptyCorpora(), func(h *harness, _ *Deps) { h.opts.AskWebChoice = true }},
			[]string{"enter", "d", "o", "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m0, _ := directModel(t, c.opts...)
			start := results(m0.Init())
			n := 0
			for _, order := range interleavings(len(start), len(c.keys)) {
				n++
				m, _ := directModel(t, c.opts...)
				// The commands Update returns are not run: here they are the
				// folder field's cursor blink and the question box's flush
				// tick (inputText flushes it); nothing of theirs may be
				// needed to put a key where it belongs.
				ri, ki := 0, 0
				for _, isKey := range order.slots {
					var msg tea.Msg
					if isKey {
						msg, ki = keyMsg(c.keys[ki]), ki+1
					} else {
						msg, ri = start[order.perm[ri]], ri+1
					}
					m.Update(msg)
				}
				d, ok := m.dialog.(*firstRunDialog)
				got := fmt.Sprintf("dialog %T", m.dialog)
				if ok {
					got += " folder " + d.path.Value()
				}
				got += " question box " + inputText(m)
				want := fmt.Sprintf("dialog %T folder doc question box ", &firstRunDialog{})
				if got != want {
					t.Fatalf("order %s: %s; want %s", order, got, want)
				}
			}
			t.Logf("%d interleavings", n)
		})
	}
}

// schedule is one order of delivery: true is the next key, false the
// next start result, taken in the order perm gives.
type schedule struct {
	slots []bool
	perm  []int
}

func (s schedule) String() string {
	var b strings.Builder
	r := 0
	for _, k := range s.slots {
		if k {
			b.WriteString("K")
		} else {
			fmt.Fprintf(&b, "R%d", s.perm[r])
			r++
		}
	}
	return b.String()
}

// interleavings lists every merge of nk keys (in order) with nr results
// (in every order).
func interleavings(nr, nk int) []schedule {
	var merges [][]bool
	var merge func(prefix []bool, r, k int)
	merge = func(prefix []bool, r, k int) {
		if r == 0 && k == 0 {
			merges = append(merges, append([]bool(nil), prefix...))
			return
		}
		if r > 0 {
			merge(append(prefix, false), r-1, k)
		}
		if k > 0 {
			merge(append(prefix, true), r, k-1)
		}
	}
	merge(nil, nr, nk)
	var out []schedule
	for _, p := range permutations(nr) {
		for _, mg := range merges {
			out = append(out, schedule{slots: mg, perm: p})
		}
	}
	return out
}

func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int(nil), p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}
