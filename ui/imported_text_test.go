package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

// A session stored with a hostile id (an import from before ids were
// checked) shows in the Sessions screen and the stepper without its escape
// sequences: no OSC 8 link, no clear-screen, no BEL reaches the terminal.
func TestHostileSessionIDNeverReachesTheTerminal(t *testing.T) {
	const id = "\x1b]8;;http://evil.example/\x07LINK\x1b]8;;\x07\x1b[2J\x1b[Hzz"
	h := newHarness(t)
	h.sessions.mu.Lock()
	h.sessions.list = append([]SessionSummary{{ID: id, ShortID: id[:12], Question: "Imported \x1b[2Jquestion?",
		Answer: "An \x1b]8;;http://evil.example/\x07answer", Label: "CORRECT\x07", Status: "answered", Model: "m\x1b[31m",
		Started: testStart.Add(-time.Hour)}}, h.sessions.list...)
	h.sessions.mu.Unlock()
	h.keys("tab", "2")
	h.waitFor("Sessions (4)", "Imported question?")
	check := func(when string) {
		t.Helper()
		f := h.frame()
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\x1b[H", "\x1b[31m"} {
			if strings.Contains(f, bad) {
				t.Errorf("%s: the frame holds %q:\n%q", when, bad, f)
			}
		}
	}
	check("sessions list")
	h.keys("enter")
	h.waitFor("session LINK")
	check("stepper")
}

// hostileEvents are the scripted session's events with an OSC 8 link, a
// clear-screen, BEL and a C1 CSI put into every string but the fields that
// give an event its shape: what an imported session may carry.
func hostileEvents(t *testing.T, id string) []engine.Event {
	t.Helper()
	const payload = "\x1b]8;;http://evil.example/\x07LINK\x1b]8;;\x07\x1b[2J\x1b[H\x07\u009b31m"
	keep := map[string]bool{"type": true, "session": true, "time": true}
	var walk func(v any, key string) any
	walk = func(v any, key string) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e, k)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e, key)
			}
		case string:
			if !keep[key] {
				return payload + x
			}
		}
		return v
	}
	var out []engine.Event
	for _, ev := range scripted.Stored(testStart) {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["session"] = id
		b, _ = json.Marshal(walk(m, ""))
		var back engine.Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		out = append(out, back)
	}
	return out
}

// An imported session whose every text holds escape sequences steps
// through the stepper, step by step to the final answer, without one
// reaching the terminal.
func TestHostileSessionTextsInTheStepper(t *testing.T) {
	const id = "5d1e0c3b2a4f46789abcdef012345678"
	h := newHarness(t)
	h.sessions.mu.Lock()
	h.sessions.list = append([]SessionSummary{{ID: id, Question: "Imported question?", Status: "answered", Started: testStart.Add(-time.Hour)}}, h.sessions.list...)
	h.sessions.events = map[string][]engine.Event{id: hostileEvents(t, id)}
	h.sessions.mu.Unlock()
	h.keys("tab", "2")
	h.waitFor("Sessions (4)")
	h.keys("enter")
	h.waitFor("1/")
	for i := 0; i < 12; i++ {
		f := h.frame()
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\x1b[H", "\u009b"} {
			if strings.Contains(f, bad) {
				t.Fatalf("stop %d: the frame holds %q:\n%q", i+1, bad, f)
			}
		}
		if !strings.Contains(f, "LINK") && i == 0 {
			t.Fatalf("the hostile text is not shown:\n%s", ansi.Strip(f))
		}
		h.keys("right")
	}
}
