package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Waiting in the tmux tests: a key is pressed, then the test waits until
// the screen shows what the key was for. No fixed sleeps (too short on a
// busy machine, wasted on an idle one) and no blind key loops (a key sent
// before the previous one took effect can overshoot what is looked for).

// keyWait is how long one key may take to show its effect.
const keyWait = 10 * time.Second

// pressed presses key and waits until the screen shows every want; it
// returns that screen.
func pressed(t *testing.T, s *tmuxSession, key string, want ...string) string {
	t.Helper()
	s.keys(key)
	return s.waitFor("after "+key, keyWait, want...)
}

// pageUntil presses key, one press at a time, until the screen shows every
// want: each press is waited for (the screen changes) before the next, so
// paging stops where want first shows. At most max presses. The screen
// must already show what every key sent before did: a change still on its
// way would be taken for the first press's, and the second press would
// then go past what is looked for.
func pageUntil(t *testing.T, s *tmuxSession, key string, max int, want ...string) string {
	t.Helper()
	scr := s.screen()
	for i := 0; ; i++ {
		if containsAll(scr, want) {
			return scr
		}
		if i == max {
			t.Fatalf("%q not on the screen after %d × %s:\n%s", want, max, key, scr)
		}
		before := scr
		s.keys(key)
		scr = s.waitChange(before, key, want)
	}
}

// stepUntil steps through a stored session in the stepper (Left, Right)
// until the screen shows every want.
func stepUntil(t *testing.T, s *tmuxSession, key string, max int, want ...string) string {
	t.Helper()
	return pageUntil(t, s, key, max, want...)
}

// waitChange waits until the screen differs from before or shows every
// want, and returns it.
func (s *tmuxSession) waitChange(before, key string, want []string) string {
	s.t.Helper()
	deadline := time.Now().Add(keyWait)
	for {
		scr := s.screen()
		if scr != before || containsAll(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s changed nothing on the screen in %v (looking for %q):\n%s", key, keyWait, want, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func containsAll(scr string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(scr, w) {
			return false
		}
	}
	return true
}

// quit ends the program with ctrl+c and waits until it has exited (its
// tmux session ends with it), so a restart finds the database released.
func quit(t *testing.T, s *tmuxSession) {
	t.Helper()
	s.keys("C-c")
	exited(t, s)
}

// exited waits until the program has exited (its tmux session ends with
// it): what it did before exiting is done.
func exited(t *testing.T, s *tmuxSession) {
	t.Helper()
	deadline := time.Now().Add(keyWait)
	for exec.Command("tmux", "-L", s.socket, "has-session", "-t", s.name).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("prefrag did not exit:\n%s", s.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exportWritten presses enter in the export dialog, waits until the screen
// says the file is written ("Written to", in the status line once the
// dialog closed) and returns the one Markdown export in dir; no
// export may land in notHere (the working directory).
func exportWritten(t *testing.T, s *tmuxSession, dir, notHere string) string {
	t.Helper()
	pressed(t, s, "Enter", "Written to")
	exported, _ := filepath.Glob(filepath.Join(dir, "prefrag-*.md"))
	if len(exported) != 1 {
		t.Fatalf("%d Markdown exports in %s, want 1:\n%s", len(exported), dir, s.screen())
	}
	if stray, _ := filepath.Glob(filepath.Join(notHere, "prefrag-*")); len(stray) > 0 {
		t.Errorf("the export dialog wrote into the working directory: %v", stray)
	}
	if b, err := os.ReadFile(exported[0]); err != nil || len(b) == 0 {
		t.Fatalf("export %s: %d bytes, %v", exported[0], len(b), err)
	}
	return exported[0]
}

// pressedAway presses key and waits until gone is no longer on the
// screen (a dialog, a one-off status message): a key sent after it is then
// read on its own, not as Alt+key after a lone Esc.
func pressedAway(t *testing.T, s *tmuxSession, key, gone string) string {
	t.Helper()
	s.keys(key)
	deadline := time.Now().Add(keyWait)
	for {
		scr := s.screen()
		if !strings.Contains(scr, gone) {
			return scr
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q still on the screen %v after %s:\n%s", gone, keyWait, key, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stepperOpened waits until the stepper shows a stored session: its tab
// is there and the session is no longer loading (keys pressed while it
// loads are held and replayed, and the loaded frame would be taken for
// the first key's effect by pageUntil and stepUntil).
func stepperOpened(t *testing.T, s *tmuxSession) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		scr := s.screen()
		if strings.Contains(scr, "session ") && !strings.Contains(scr, "Loading session") {
			return scr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stepper did not open a session in 10s:\n%s", scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
