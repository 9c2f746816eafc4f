package npmtool

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInstall installs the pinned packages (scripts/npm-test-tools.sh runs
// it before the test run in CI) and checks each command is there and that
// the Node.js 22 binary runs.
func TestInstall(t *testing.T) {
	for _, c := range []string{"mcp-server-memory", "mcp-server-everything", "mcp-inspector-cli", "conformance"} {
		if p := Bin(t, c); !strings.HasSuffix(p, c) {
			t.Errorf("Bin(%q) = %q", c, p)
		}
	}
	out, err := exec.Command(Node22(t), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "v22.") {
		t.Fatalf("node --version: %q, %v", out, err)
	}
}
