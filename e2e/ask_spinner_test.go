package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// colourEnv is the world's environment without NO_COLOR: a terminal that
// wants colour.
func colourEnv(w *world) []string {
	var env []string
	for _, kv := range w.env() {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			env = append(env, kv)
		}
	}
	return append(env, "TERM=xterm-256color")
}

// A headless ask in a terminal (a tmux pane) shows the phase it is in on a
// spinner line while the model is slow, and the line is gone when the
// answer is printed; the same ask piped prints no escape sequence at all.
func TestAskSpinnerInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	w := newWorld(t, caseStudyScript(), fakellm.Latency(1500*time.Millisecond))
	inner := "env"
	for _, kv := range colourEnv(w) {
		inner += " " + shellQuote(kv)
	}
	inner += " " + shellQuote(binary)
	for _, a := range w.askArgs(caseQuestion) {
		inner += " " + shellQuote(a)
	}
	inner += "; echo EXIT=$?; sleep 60"
	s := &tmuxSession{t: t, socket: fmt.Sprintf("prefrag-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "p", log: w.home + "/data/prefrag.log"}
	out, err := exec.Command("tmux", "-L", s.socket, "new-session", "-d", "-s", s.name, "-x", "100", "-y", "40", "sh", "-c", inner).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })

	mid := s.waitFor("phase line", 20*time.Second, "step 1 · thinking")
	if !strings.Contains(mid, "Question: ") {
		t.Errorf("the spinner came before the question:\n%s", mid)
	}
	s.waitFor("judging", 20*time.Second, "step 1 · judging")
	end := s.waitFor("answer", 40*time.Second, "Final answer", "EXIT=0")
	for _, phase := range []string{"thinking", "judging", "searching", "starting"} {
		if strings.Contains(end, "· "+phase) {
			t.Errorf("the spinner line (%s) is still on screen after the run:\n%s", phase, end)
		}
	}
	coloured, _ := exec.Command("tmux", "-L", s.socket, "capture-pane", "-e", "-p", "-t", s.name).CombinedOutput()
	if !strings.Contains(string(coloured), "\x1b[") {
		t.Errorf("no colour on a colour terminal:\n%q", coloured)
	}

	// Piped: the same run, plain text only.
	w = newWorld(t, caseStudyScript())
	cmd := w.command(t.Context(), w.askArgs(caseQuestion)...)
	cmd.Env = colourEnv(w)
	piped, err := cmd.Output()
	if err != nil {
		t.Fatalf("piped ask: %v", err)
	}
	if !strings.Contains(string(piped), "Final answer") {
		t.Fatalf("piped ask printed no answer:\n%s", piped)
	}
	if strings.ContainsAny(string(piped), "\x1b\r") {
		t.Errorf("escape sequences or carriage returns in piped output:\n%q", piped)
	}
}
