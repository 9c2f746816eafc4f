package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

// testWorkDir is the working directory the tests pretend to run in.
const testWorkDir = "/home/analyst/work"

// harness runs the real root model in a teatest program, with the scripted
// engine and in-memory services, at a fixed size, without colour and with a
// clock the test controls: screens are compared as golden files.
type harness struct {
	t        *testing.T
	tm       *teatest.TestModel
	runner   *scriptRunner
	sessions *fakeSessions
	corpora  *fakeCorpora
	clock    *fakeClock
	opts     Options
	w, h     int
}

type harnessOption func(*harness, *Deps)

func withEmptyCorpora() harnessOption {
	return func(h *harness, _ *Deps) { h.corpora = newFakeCorpora(true) }
}

func withHealth(err error) harnessOption {
	return func(_ *harness, d *Deps) { d.Health = fakeHealth{err: err} }
}

func withWeb(policy string) harnessOption {
	return func(h *harness, _ *Deps) { h.opts.Settings.Web = policy }
}

func withColor() harnessOption {
	return func(h *harness, _ *Deps) { h.opts.NoColor = false }
}

func withSize(w, ht int) harnessOption {
	return func(h *harness, _ *Deps) { h.w, h.h = w, ht }
}

// probe asks the running program for its current frame; the program's own
// goroutine answers it (through the filter below), so tests never touch
// the model concurrently.
type probe struct{ reply chan string }

func probeFilter(m tea.Model, msg tea.Msg) tea.Msg {
	if p, ok := msg.(probe); ok {
		p.reply <- m.(*Model).render()
		return nil
	}
	if p, ok := msg.(inspect); ok {
		p.fn(m.(*Model))
		close(p.done)
		return nil
	}
	return msg
}

// inspect runs fn on the model in the program's own goroutine.
type inspect struct {
	fn   func(*Model)
	done chan struct{}
}

func newHarness(t *testing.T, options ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, runner: newScriptRunner(), sessions: newFakeSessions(), corpora: newFakeCorpora(false), clock: newClock(), w: 80, h: 24}
	st := scripted.Settings()
	st.Corpora = nil // the pinned corpus is the preferred one
	h.opts = Options{Settings: st, WorkDir: testWorkDir, NoColor: true, Now: h.clock.Now}
	deps := Deps{Health: fakeHealth{}}
	for _, o := range options {
		o(h, &deps)
	}
	deps.Runner, deps.Sessions, deps.Corpora = h.runner, h.sessions, h.corpora
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx, deps, h.opts)
	h.tm = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(h.w, h.h),
		teatest.WithProgramOptions(tea.WithFilter(probeFilter)))
	t.Cleanup(func() {
		cancel()
		_ = h.tm.Quit()
		h.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		m.shutdown()
	})
	return h
}

// frame is the current frame with colours and attributes stripped.
func (h *harness) frame() string {
	h.t.Helper()
	reply := make(chan string, 1)
	h.tm.Send(probe{reply: reply})
	select {
	case s := <-reply:
		return s
	case <-time.After(5 * time.Second):
		h.t.Fatal("the program did not answer the probe")
		return ""
	}
}

func (h *harness) plain() string { return ansi.Strip(h.frame()) }

// waitFor polls the frame until it contains every part.
func (h *harness) waitFor(parts ...string) string {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	var s string
	for time.Now().Before(deadline) {
		s = h.plain()
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(s, p)
		}
		if ok {
			return s
		}
		time.Sleep(15 * time.Millisecond)
	}
	h.t.Fatalf("the screen never showed %q; last frame:\n%s", parts, s)
	return ""
}

// golden compares the current frame with testdata/<test>/<name>.golden,
// once it shows every part of want and has settled (no command still
// changing it).
func (h *harness) golden(name string, want ...string) {
	h.t.Helper()
	s := h.waitFor(want...)
	for i := 0; i < 100; i++ {
		time.Sleep(40 * time.Millisecond)
		next := h.plain()
		if next == s && !strings.Contains(s, "loading…") {
			break
		}
		s = next
	}
	h.t.Run(name, func(t *testing.T) {
		checkFrame(t, s, h.w, h.h)
		golden.RequireEqual(t, s)
	})
}

// checkFrame fails when the frame does not fit the terminal exactly.
func checkFrame(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines, terminal has %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d columns, terminal has %d: %q", i+1, n, w, l)
		}
	}
}

// keys sends named keys; anything else is typed as text.
func (h *harness) keys(names ...string) {
	for _, n := range names {
		h.tm.Send(keyMsg(n))
	}
}

func (h *harness) typeText(s string) { h.tm.Type(s) }

func keyMsg(name string) tea.KeyPressMsg {
	special := map[string]tea.KeyPressMsg{
		"enter":       {Code: tea.KeyEnter},
		"shift+enter": {Code: tea.KeyEnter, Mod: tea.ModShift},
		"ctrl+j":      {Code: 'j', Mod: tea.ModCtrl},
		"esc":         {Code: tea.KeyEscape},
		"tab":         {Code: tea.KeyTab},
		"shift+tab":   {Code: tea.KeyTab, Mod: tea.ModShift},
		"up":          {Code: tea.KeyUp},
		"down":        {Code: tea.KeyDown},
		"left":        {Code: tea.KeyLeft},
		"right":       {Code: tea.KeyRight},
		"home":        {Code: tea.KeyHome},
		"end":         {Code: tea.KeyEnd},
		"pgup":        {Code: tea.KeyPgUp},
		"pgdown":      {Code: tea.KeyPgDown},
		"space":       {Code: tea.KeySpace, Text: " "},
		"ctrl+c":      {Code: 'c', Mod: tea.ModCtrl},
	}
	if k, ok := special[name]; ok {
		return k
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// ask types a question and sends it.
func (h *harness) ask(q string) {
	h.typeText(q)
	h.keys("enter")
}

// finalSeen waits until the scripted run has ended.
func (h *harness) finalSeen() string {
	return h.waitFor("Final answer", "Counts")
}

// waitUntil polls cond for up to five seconds.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openSession opens the scripted session in the stepper.
func (h *harness) openSession() {
	h.t.Helper()
	h.keys("tab", "2")
	h.waitFor("Sessions (3)")
	h.keys("enter")
	h.waitFor("1/6")
}
