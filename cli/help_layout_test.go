package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// `prefrag help` lists every command and subcommand, and every description
// starts in one column (a long left cell puts it on the next line, in that
// column).
func TestGeneralHelpListsEverySubcommandAligned(t *testing.T) {
	configWorld(t, "")
	var out bytes.Buffer
	Main([]string{"help"}, strings.NewReader(""), &out, &bytes.Buffer{})
	help := out.String()
	var want []string
	for _, c := range commands() {
		want = append(want, "prefrag "+c.name)
	}
	for _, s := range strings.Fields(sessionsSubs) {
		want = append(want, "prefrag sessions "+s)
	}
	for _, s := range []string{"pin", "unpin", "rm", "add"} {
		want = append(want, "prefrag corpora "+s)
	}
	for _, s := range []string{"retrieval", "engine"} {
		want = append(want, "prefrag bench "+s)
	}
	want = append(want, "prefrag help", "prefrag completion", "prefrag version")
	for _, w := range want {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(w) + `\b`).MatchString(help) {
			t.Errorf("prefrag help does not list %q:\n%s", w, help)
		}
	}

	i, j := strings.Index(help, "Usage:\n"), strings.Index(help, "\nRun `prefrag help")
	if i < 0 || j < i {
		t.Fatalf("no Usage section:\n%s", help)
	}
	col, pendingLeft := -1, false
	row := regexp.MustCompile(`^  (\S+(?: \S+)*)(  +)\S`)
	for _, l := range strings.Split(strings.TrimRight(help[i+len("Usage:\n"):j], "\n"), "\n") {
		var c int
		switch m := row.FindStringSubmatch(l); {
		case strings.HasPrefix(l, "  prefrag") && m != nil:
			c, pendingLeft = 2+len([]rune(m[1]))+len(m[2]), false
		case strings.HasPrefix(l, "  prefrag"):
			pendingLeft = true // its description follows on the next line
			continue
		case pendingLeft && strings.TrimSpace(l) != "":
			c, pendingLeft = len(l)-len(strings.TrimLeft(l, " ")), false
		default:
			t.Errorf("usage line %q is neither a row nor a description under one", l)
			continue
		}
		if col >= 0 && c != col {
			t.Errorf("description of %q starts in column %d, want %d", l, c, col)
		}
		col = c
	}
}

// A run flag's help shows the built-in default, and a value from the
// config file or the environment as such, not as the default.
func TestHelpShowsBuiltInDefaultsAndConfigValues(t *testing.T) {
	configWorld(t, "model = \"qwen3:8b\"\nk = 7\n")
	t.Setenv("OLLAMA_HOST", "10.0.0.5")
	for _, cmd := range []string{"ask", "config", "eval"} {
		var out bytes.Buffer
		Main([]string{"help", cmd}, strings.NewReader(""), &out, &bytes.Buffer{})
		help := out.String()
		for _, want := range []string{
			"(default llama3.1:8b; config file: qwen3:8b)",
			"(default 5; config file: 7)",
			"(default http://127.0.0.1:11434; $OLLAMA_HOST: http://10.0.0.5:11434)",
			"(default 3)",
		} {
			if !strings.Contains(help, want) {
				t.Errorf("help %s lacks %q:\n%s", cmd, want, help)
			}
		}
		if strings.Contains(help, "(default qwen3:8b)") || strings.Contains(help, "(default 7)") {
			t.Errorf("help %s shows a config value as the default:\n%s", cmd, help)
		}
	}
}
