package cli

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// exampleLines are every example of every help text: the per-command
// texts and the examples printed by `completion -h`.
func exampleLines(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for key, h := range helpTexts {
		out[key] = append(out[key], h.examples...)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"completion", "-h"}, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("completion -h: exit %d %s", code, stderr.String())
	}
	_, ex, _ := strings.Cut(stdout.String(), "Examples:\n")
	for _, l := range strings.Split(ex, "\n") {
		if strings.TrimSpace(l) != "" {
			out["completion"] = append(out["completion"], strings.TrimSpace(l))
		}
	}
	return out
}

// shellWords splits an example as a shell would, far enough for help
// examples: quotes, a process substitution `<(prefrag …)` taken for its
// command, and nothing after a redirection, a pipe or a comment.
func shellWords(line string) []string {
	if i := strings.Index(line, "<("); i >= 0 {
		line = strings.TrimSuffix(strings.TrimSpace(strings.SplitN(line[i+2:], ")", 2)[0]), ")")
	}
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case (r == '>' || r == '|' || r == '#') && !inWord:
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

var flagLine = regexp.MustCompile(`(?m)^\s+(--?[A-Za-z][A-Za-z0-9-]*)`)

// Every example in every help text uses only flags its command has: the
// example, run with -h added, parses (exit 0, its command's help, nothing
// on stderr), and every flag it names is listed in that help. Before the
// fix `ask`'s example used --max-hops, which does not exist.
func TestHelpExamplesUseRealFlags(t *testing.T) {
	configWorld(t, "")
	ex := exampleLines(t)
	keys := make([]string, 0, len(ex))
	for k := range ex {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	checked := 0
	for _, key := range keys {
		for _, line := range ex[key] {
			words := shellWords(line)
			if len(words) == 0 || words[0] != "prefrag" {
				t.Errorf("%s: example %q does not start with prefrag", key, line)
				continue
			}
			var used []string
			for _, w := range words[1:] {
				if strings.HasPrefix(w, "-") && len(w) > 1 {
					name, _, _ := strings.Cut(w, "=")
					used = append(used, name)
				}
			}
			if len(used) == 0 {
				continue // no flag to check
			}
			checked++
			args := append(append([]string(nil), words[1:]...), "-h")
			var stdout, stderr bytes.Buffer
			code := Main(args, strings.NewReader(""), &stdout, &stderr)
			if code != ExitOK || stderr.Len() != 0 || !strings.Contains(stdout.String(), "Usage:") {
				t.Errorf("%s: example %q does not parse: exit %d, stderr %q", key, line, code, stderr.String())
				continue
			}
			help, _, _ := strings.Cut(stdout.String(), "Examples:")
			listed := map[string]bool{}
			for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
				listed[m[1]] = true
			}
			for _, f := range used {
				if !listed[f] {
					t.Errorf("%s: example %q uses %s, which its help does not list:\n%s", key, line, f, help)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d examples with flags were checked: the extraction is broken", checked)
	}
}

func TestShellWords(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{`prefrag ask --json "Question one" > events.jsonl`, []string{"prefrag", "ask", "--json", "Question one"}},
		{`source <(prefrag completion bash)        # in ~/.bashrc`, []string{"prefrag", "completion", "bash"}},
		{`prefrag completion zsh > "${fpath[1]}/_prefrag"`, []string{"prefrag", "completion", "zsh"}},
		{`prefrag sessions list --status failed --since 72h --json`, []string{"prefrag", "sessions", "list", "--status", "failed", "--since", "72h", "--json"}},
		{`prefrag ask 'it''s'`, []string{"prefrag", "ask", "its"}},
	} {
		if got := shellWords(tt.line); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("shellWords(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
