package e2e

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// `prefrag completion bash` loads in bash; its function offers the
// subcommands, the sessions subcommands, the flags and, for --corpus and
// `corpora pin|rm`, the names of the corpora in PREFRAG_HOME (asked of the
// binary itself at completion time).
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	w := emptyWorld(t, &fakellm.Script{})
	w.write("a.md", "# A\n\nalpha text\n")
	for _, name := range []string{"papers", "notes"} {
		if out, errOut, code := w.run("index", "--corpus", name, w.docs); code != 0 {
			t.Fatalf("index %s: %d %s %s", name, code, out, errOut)
		}
	}
	script := `set -e
source <("$BIN" completion bash)
show() { COMP_WORDS=("$BIN" "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _prefrag; echo "${COMPREPLY[*]}"; }
show ""
show search --corpus ""
show corpora pin ""
show corpora rm n
show sessions ""
show ask --max-s
complete -p prefrag
`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", script)
	cmd.Env = append(w.env(), "BIN="+binary)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("want 7 lines, got:\n%s", out)
	}
	want := []struct {
		line  int
		words []string
	}{
		{0, []string{"ask", "index", "corpora", "search", "sessions", "eval", "bench", "config", "help", "version", "completion"}},
		{1, []string{"notes", "papers"}},
		{2, []string{"notes", "papers"}},
		{3, []string{"notes"}},
		{4, []string{"list", "show", "search", "export", "import", "rerun"}},
		{5, []string{"--max-steps"}},
	}
	for _, c := range want {
		got := strings.Fields(lines[c.line])
		for _, wd := range c.words {
			if !contains(got, wd) {
				t.Errorf("completion %d: %q lacks %q", c.line, lines[c.line], wd)
			}
		}
	}
	if strings.Contains(lines[3], "papers") {
		t.Errorf("`corpora rm n` completed to %q", lines[3])
	}
	if !strings.Contains(lines[6], "_prefrag prefrag") {
		t.Errorf("complete -p: %q", lines[6])
	}
}
