package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Ctrl+C before the model has answered anything says so, instead of an
// empty "best partial answer".
func TestCtrlCBeforeAnyAnswerSaysSo(t *testing.T) {
	slow := fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		return fakellm.Reply{Text: strings.Repeat("thinking ", 400), ChunkDelay: 20 * time.Millisecond}
	})
	w := newWorld(t, slow)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := w.command(ctx, w.askArgs("--web", "never", "Q?")...)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := stdout.Read(buf) // the question line: the session has started
	t0 := time.Now()
	cmd.Process.Signal(interruptSignal)
	rest := make([]byte, 1<<16)
	m, _ := readAll(stdout, rest)
	cmd.Wait()
	t.Logf("ended %v after the signal", time.Since(t0))
	out := string(buf[:n]) + string(rest[:m])
	if !strings.Contains(out, "Cancelled before any answer.") {
		t.Errorf("the output does not say there is no answer:\n%s", out)
	}
	if strings.Contains(out, "best partial answer") {
		t.Errorf("the output announces a partial answer it does not have:\n%s", out)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}

// Every failure of `ask --json` before a session starts prints one fatal
// error event on stdout (no session id: none exists), besides the sentence
// on stderr, and stores nothing.
func TestJSONErrorBeforeSessionStarts(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	closed := fakellm.ClosedURL(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"temperature NaN", []string{"ask", "--json", "--temperature", "NaN", "Q?"}, 2, "--temperature must be between 0 and 2, not NaN"},
		{"top-p Inf", []string{"ask", "--top-p", "Inf", "--json", "Q?"}, 2, "--top-p"},
		{"bad int before --json", []string{"ask", "-k", "abc", "--json", "Q?"}, 2, "-k"},
		{"no question", []string{"ask", "--json", "--llm-url", w.llm.URL()}, 2, "needs a question"},
		{"server unreachable", []string{"ask", "--json", "--llm-url", closed, "--web", "never", "Q?"}, 1, "ollama serve"},
		{"model missing", []string{"ask", "--json", "--llm-url", w.llm.URL(), "--model", "qwen9:404b", "--web", "never", "Q?"}, 1, "ollama pull qwen9:404b"},
		{"unknown corpus", []string{"ask", "--json", "--llm-url", w.llm.URL(), "--model", "fake-model", "--corpus", "nope", "--web", "never", "Q?"}, 1, "prefrag index --corpus nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Now()
			out, errOut, code := w.run(tt.args...)
			if took := time.Since(t0); took > 20*time.Second {
				t.Errorf("took %v", took)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 1 {
				t.Fatalf("stdout is not one event line: %q", out)
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
				t.Fatalf("stdout is not JSON: %v: %q", err, out)
			}
			for _, k := range []string{"type", "session", "seq", "time", "message", "fatal"} {
				if _, ok := ev[k]; !ok {
					t.Errorf("the event lacks %q: %s", k, lines[0])
				}
			}
			if ev["type"] != "error" || ev["fatal"] != true || ev["session"] != "" || ev["seq"] != float64(1) {
				t.Errorf("event %s", lines[0])
			}
			if ts, _ := ev["time"].(string); ts == "" {
				t.Errorf("no time: %s", lines[0])
			} else if _, err := time.Parse(time.RFC3339, ts); err != nil {
				t.Errorf("time %q: %v", ts, err)
			}
			msg, _ := ev["message"].(string)
			if !strings.Contains(msg, tt.want) {
				t.Errorf("message %q lacks %q", msg, tt.want)
			}
			if got := strings.TrimSpace(strings.TrimPrefix(errOut, "prefrag: ")); got != msg {
				t.Errorf("stderr %q and the event %q differ", got, msg)
			}
		})
	}
	if list, _, _ := w.run("sessions", "list", "--json"); strings.TrimSpace(list) != "" {
		t.Errorf("failures before a session stored sessions: %s", list)
	}
	// Without --json, stdout stays empty.
	if out, _, code := w.run("ask", "--temperature", "NaN", "Q?"); code != 2 || out != "" {
		t.Errorf("text mode: exit %d, stdout %q", code, out)
	}
}
