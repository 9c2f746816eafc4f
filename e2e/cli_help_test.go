package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// The real binary explains itself: `help ask` and `ask --help` print the
// same per-command help and exit 0; --version names the version, commit
// and build date.
func TestCLIHelpAndVersion(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	a, aerr, acode := w.run("help", "ask")
	b, berr, bcode := w.run("ask", "--help")
	if acode != 0 || bcode != 0 || aerr != "" || berr != "" {
		t.Fatalf("help ask: %d %q; ask --help: %d %q", acode, aerr, bcode, berr)
	}
	if a != b {
		t.Errorf("help ask and ask --help differ:\n%s\n---\n%s", a, b)
	}
	for _, want := range []string{"Answer one question headless", "Usage:\n  prefrag ask [flags] QUESTION", "Flags:", "--model string", "Examples:"} {
		if !strings.Contains(a, want) {
			t.Errorf("help ask lacks %q:\n%s", want, a)
		}
	}
	v, verr, vcode := w.run("--version")
	if vcode != 0 || verr != "" {
		t.Fatalf("--version: %d %q", vcode, verr)
	}
	if !regexp.MustCompile(`^prefrag \S+ \(commit (?:[0-9a-f]+|unknown)(?:-dirty)?, built \S+\)\n$`).MatchString(v) {
		t.Errorf("--version printed %q", v)
	}
}
