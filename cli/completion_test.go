package cli

import (
	"bytes"
	"strings"
	"testing"
)

// Each shell's script names the subcommands and asks prefrag for corpus
// names; an unknown shell is a usage error (exit 2), printed once.
func TestCompletionScripts(t *testing.T) {
	configWorld(t, "")
	cases := []struct {
		shell string
		want  []string
	}{
		{"bash", []string{"complete -F _prefrag prefrag", "corpora --names", "list show search export import rerun", "--max-steps"}},
		{"zsh", []string{"#compdef prefrag", "bashcompinit", "complete -F _prefrag prefrag"}},
		{"fish", []string{"complete -c prefrag -n __fish_use_subcommand", "prefrag corpora --names", "-l max-steps", "sessions"}},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := Main([]string{"completion", c.shell}, strings.NewReader(""), &out, &errb); code != ExitOK || errb.Len() > 0 {
			t.Fatalf("%s: exit %d %q", c.shell, code, errb.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s script lacks %q", c.shell, w)
			}
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"completion", "tcsh"}, strings.NewReader(""), &out, &errb); code != ExitUsage {
		t.Errorf("tcsh: exit %d", code)
	}
	if strings.Count(errb.String(), "prefrag:") != 1 {
		t.Errorf("error prefix not once: %q", errb.String())
	}
}

// `corpora --names` lists nothing (and succeeds) without corpora.
func TestCorporaNamesEmpty(t *testing.T) {
	configWorld(t, "")
	var out, errb bytes.Buffer
	if code := Main([]string{"corpora", "--names"}, strings.NewReader(""), &out, &errb); code != ExitOK || out.Len() != 0 {
		t.Errorf("exit %d out %q err %q", code, out.String(), errb.String())
	}
}

// `help completion` and `completion --help` explain the command.
func TestCompletionHelp(t *testing.T) {
	configWorld(t, "")
	for _, args := range [][]string{{"help", "completion"}, {"completion", "--help"}} {
		var out, errb bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errb); code != ExitOK || !strings.Contains(out.String(), "prefrag completion bash|zsh|fish") {
			t.Errorf("%q: exit %d %q %q", args, code, out.String(), errb.String())
		}
	}
}
