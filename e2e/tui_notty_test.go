package e2e

import (
	"strings"
	"testing"
)

// The TUI started without a terminal (stdin and stdout are not one) says
// so in one sentence on stderr and exits 1, without drawing anything.
func TestTUIWithoutTerminal(t *testing.T) {
	w := &world{t: t, home: t.TempDir()}
	out, errOut, code := w.run()
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if out != "" {
		t.Errorf("stdout %q, want nothing", out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "needs a terminal") || strings.Contains(errOut, "\x1b") {
		t.Errorf("stderr %q, want one sentence saying a terminal is needed", errOut)
	}
}
