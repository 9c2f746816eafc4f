package ui

import (
	"strings"
	"testing"
	"time"
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
