package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// tmuxSession drives the real binary in a tmux pane, as a person would.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
	log    string // prefrag's log file, printed when a wait fails
}

func startTmux(t *testing.T, w *world, dir string, args ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("prefrag-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "p",
		log: filepath.Join(w.home, "data", "prefrag.log")}
	cmd := "env"
	for _, kv := range w.env() {
		cmd += " " + shellQuote(kv)
	}
	cmd += " TERM=xterm-256color " + shellQuote(binary)
	for _, a := range args {
		cmd += " " + shellQuote(a)
	}
	out, err := exec.Command("tmux", "-L", s.socket, "new-session", "-d", "-s", s.name, "-x", "100", "-y", "30", "-c", dir, cmd).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	args := append([]string{"-L", s.socket, "send-keys", "-t", s.name}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys %v: %v %s", keys, err, out)
	}
}

func (s *tmuxSession) text(text string) {
	s.t.Helper()
	if out, err := exec.Command("tmux", "-L", s.socket, "send-keys", "-t", s.name, "-l", text).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys: %v %s", err, out)
	}
}

func (s *tmuxSession) screen() string {
	out, err := exec.Command("tmux", "-L", s.socket, "capture-pane", "-p", "-t", s.name).CombinedOutput()
	if err != nil {
		return ""
	}
	return string(out)
}

// waitFor polls the screen until every want is on it.
func (s *tmuxSession) waitFor(what string, timeout time.Duration, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		scr := s.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(scr, w) {
				ok = false
				break
			}
		}
		if ok {
			return scr
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(s.log)
			s.t.Fatalf("%s: %q not on the screen after %v:\n%s\nprefrag.log:\n%s", what, want, timeout, scr, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The TUI end to end at 100×30: steps appear one by one, a visible switch
// to web with the judge's analysis, the labelled answer and its sources;
// Esc mid-run keeps a partial session; the sessions screen lists both; the
// stepper walks one; export writes Markdown; a pin survives a restart.
func TestTUIInTmux(t *testing.T) {
	script := caseStudyScript()
	slow := "Thought: This question needs a very long think " + strings.Repeat("and more thinking ", 300)
	r := fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		if strings.Contains(c.Prompt, "SLOW QUESTION") && c.Schema == nil {
			return fakellm.Reply{Text: slow, ChunkDelay: 30 * time.Millisecond}
		}
		return script.Respond(c)
	})
	w := newWorld(t, r, fakellm.ChunkDelay(40*time.Millisecond))
	work := t.TempDir()
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL()}
	s := startTmux(t, w, work, args...)
	s.waitFor("start", 15*time.Second, "Ask a question", "pref wiki", "web auto")

	s.text(caseQuestion)
	s.keys("Enter")
	mid := s.waitFor("first step", 15*time.Second, "Step 1")
	if strings.Contains(mid, "Final answer") {
		t.Error("the answer was on screen with the first step: steps must appear one by one")
	}
	s.waitFor("switch to web", 15*time.Second, "switching to web", "nothing about the ecologist")
	s.waitFor("answer", 15*time.Second, "Final answer", "CORRECT", "1974", "Sources", "Carsten Olsen")

	// Esc mid-run keeps the partial trajectory and session (a new thread:
	// after an answer the input would ask a follow-up).
	s.keys("C-n")
	s.text("SLOW QUESTION: what takes long?")
	s.keys("Enter")
	s.waitFor("slow run streams", 15*time.Second, "very long think")
	s.keys("Escape")
	s.waitFor("cancelled", 10*time.Second, "partial trajectory is saved")

	// The sessions screen lists both; the stepper walks the first.
	s.keys("Tab")
	s.keys("2")
	s.waitFor("sessions", 10*time.Second, "Sessions (2)", "SLOW QUESTION", "In what year did the Danish")
	s.keys("j")
	s.keys("Enter")
	stepperOpened(t, s)
	first := pressed(t, s, "Home", "step 1")
	// The analyst's verdict on the judge's decision of step 1.
	pressed(t, s, "a", "judge of step 1 was correct")
	stepUntil(t, s, "Right", 2, "step 3")
	if first == s.screen() {
		t.Error("stepping did not change the screen")
	}

	// Export from the stepper: Markdown in the exports folder of the data
	// directory, never the working directory (it may be indexed).
	pressed(t, s, "x", "format", "path")
	exported := exportWritten(t, s, filepath.Join(w.home, "data", "exports"), work)
	md, _ := os.ReadFile(exported)
	if !strings.Contains(string(md), "\n# In what year did the Danish") || !strings.Contains(string(md), "1974") {
		t.Errorf("export:\n%s", md)
	}

	// The verdict travels with the judge's inputs into the preference pairs.
	pairs, _, _ := w.run("sessions", "export", "--all", "--format", "pairs")
	if !strings.Contains(pairs, `"user_verdict":"correct"`) {
		t.Errorf("pairs export lacks the verdict given in the stepper:\n%s", pairs)
	}

	// The partial session is stored as cancelled.
	list, _, _ := w.run("sessions", "list", "--json")
	if !strings.Contains(list, `"status":"cancelled"`) {
		t.Errorf("sessions: %s", list)
	}

	// Pin another corpus in the corpora screen; it is preferred after a restart.
	notes := filepath.Join(w.home, "notes")
	os.MkdirAll(notes, 0o755)
	os.WriteFile(filepath.Join(notes, "n.md"), []byte("# Notes\n\nLab notes about pH meters.\n"), 0o644)
	if _, e, code := w.run("index", "--corpus", "notes", notes); code != 0 {
		t.Fatal(e)
	}
	pressedAway(t, s, "Escape", "Written to")
	pressed(t, s, "3", "notes", "wiki")
	s.keys("r")
	s.keys("g")
	s.waitFor("notes listed", 5*time.Second, "notes")
	// notes sorts before wiki: the cursor is on it.
	pressed(t, s, "p", "pref notes")
	quit(t, s)
	s2 := startTmux(t, w, work, args...)
	s2.waitFor("restart keeps the pin", 15*time.Second, "pref notes")
}
