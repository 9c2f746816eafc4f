package cli

import (
	"bytes"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Every command's help, reached as `help CMD`, `CMD --help` and `CMD -h`,
// has its description, usage, and examples, exits 0 and writes nothing on
// stderr.
func TestPerCommandHelp(t *testing.T) {
	configWorld(t, "")
	cases := []struct {
		cmd  []string
		want []string
	}{
		{[]string{"ask"}, []string{"Answer one question headless", "prefrag ask [flags] QUESTION", "--max-steps int", "Examples:", `prefrag ask "`}},
		{[]string{"index"}, []string{"Ingest files", "--corpus", "prefrag index ~/papers"}},
		{[]string{"corpora"}, []string{"pin or unpin", "--json", "prefrag corpora pin papers"}},
		{[]string{"search"}, []string{"BM25", "-k int", "Examples:"}},
		{[]string{"sessions"}, []string{"stored sessions", "prefrag sessions show ID", "prefrag sessions rerun ID", "Examples:"}},
		{[]string{"sessions", "list"}, []string{"List stored sessions", "--status string", "Examples:"}},
		{[]string{"sessions", "show"}, []string{"Show one session", "--json ", "prefrag sessions show 3f2a"}},
		{[]string{"sessions", "search"}, []string{"Find sessions", "Examples:"}},
		{[]string{"sessions", "export"}, []string{"Export sessions", "--format", "Examples:"}},
		{[]string{"sessions", "import"}, []string{"Import a session", "Examples:"}},
		{[]string{"sessions", "rerun"}, []string{"again", "--offline", "Examples:"}},
		{[]string{"sessions", "rm"}, []string{"Delete sessions", "--older-than string", "--yes", "Examples:"}},
		{[]string{"eval"}, []string{"Evaluate strategies", "--data", "Examples:"}},
		{[]string{"bench", "retrieval"}, []string{"retrieval quality", "Examples:"}},
		{[]string{"bench", "engine"}, []string{"overhead per LLM call", "Examples:"}},
		{[]string{"config"}, []string{"effective setting", "Examples:", "prefrag config"}},
	}
	for _, c := range cases {
		forms := [][]string{
			append([]string{"help"}, c.cmd...),
			append(append([]string{}, c.cmd...), "--help"),
			append(append([]string{}, c.cmd...), "-h"),
		}
		for _, args := range forms {
			var out, errb bytes.Buffer
			code := Main(args, strings.NewReader(""), &out, &errb)
			if code != ExitOK || errb.Len() != 0 {
				t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("%q: help lacks %q:\n%s", args, w, out.String())
				}
			}
		}
	}
}

// Flag descriptions start in one column: the flags are aligned.
func TestHelpFlagsAligned(t *testing.T) {
	configWorld(t, "")
	var out bytes.Buffer
	Main([]string{"help", "ask"}, strings.NewReader(""), &out, &bytes.Buffer{})
	s := out.String()
	i := strings.Index(s, "Flags:\n")
	j := strings.Index(s, "\nExamples:")
	if i < 0 || j < i {
		t.Fatalf("no Flags/Examples sections:\n%s", s)
	}
	col := -1
	for _, l := range strings.Split(strings.TrimSpace(s[i+len("Flags:\n"):j]), "\n") {
		l = "  " + strings.TrimLeft(l, " ")
		m := regexp.MustCompile(`^  \S+( \S+)?  +`).FindString(l)
		if m == "" {
			t.Fatalf("flag line without a description column: %q", l)
		}
		if col >= 0 && len(m) != col {
			t.Errorf("misaligned flag line %q (column %d, want %d)", l, len(m), col)
		}
		col = len(m)
	}
}

// `prefrag help` alone and `prefrag --help` give the general help;
// an unknown command's help is a usage error printed once.
func TestGeneralHelpAndUnknown(t *testing.T) {
	configWorld(t, "")
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		var out, errb bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errb); code != ExitOK {
			t.Errorf("%q: exit %d", args, code)
		}
		for _, w := range []string{"prefrag ask", "prefrag sessions", "prefrag help [COMMAND]", "prefrag version"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q lacks %q", args, w)
			}
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"help", "nosuch"}, strings.NewReader(""), &out, &errb); code != ExitUsage {
		t.Errorf("help nosuch: exit %d", code)
	}
	if strings.Count(errb.String(), "prefrag:") != 1 {
		t.Errorf("error prefix not printed exactly once: %q", errb.String())
	}
}

// --version and version print "prefrag VERSION (commit REV, built TIME)".
func TestVersion(t *testing.T) {
	configWorld(t, "")
	re := regexp.MustCompile(`^prefrag \S+ \(commit (?:[0-9a-f]+|unknown)(?:-dirty)?, built \S+\)\n$`)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		var out, errb bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errb); code != ExitOK {
			t.Errorf("%q: exit %d", args, code)
		}
		if !re.MatchString(out.String()) {
			t.Errorf("%q: %q does not match %s", args, out.String(), re)
		}
	}
}

func TestParseAge(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{{"30d", 30 * 24 * time.Hour, true}, {"12h", 12 * time.Hour, true}, {"1.5d", 36 * time.Hour, true}, {"90m", 90 * time.Minute, true},
		{"d", 0, false}, {"-3d", 0, false}, {"soon", 0, false}, {"-1h", 0, false}} {
		got, err := parseAge(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseAge(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
	vcs := func(rev, at, mod string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: mod}}
	}
	bi := func(v string, s []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: v}, Settings: s}
	}
	rev := "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		ver  string
		bi   *debug.BuildInfo
		want string
	}{
		{"dev", bi("(devel)", vcs(rev, "2026-11-23T10:00:00Z", "false")), "prefrag devel (commit 0123456789ab, built 2026-11-23T10:00:00Z)"},
		{"dev", bi("(devel)", vcs(rev, "2026-11-23T10:00:00Z", "true")), "prefrag devel (commit 0123456789ab-dirty, built 2026-11-23T10:00:00Z)"},
		{"dev", bi("v1.2.3", nil), "prefrag v1.2.3 (commit unknown, built unknown)"},
		{"v2.0.0", bi("(devel)", vcs(rev, "2026-11-23T10:00:00Z", "false")), "prefrag v2.0.0 (commit 0123456789ab, built 2026-11-23T10:00:00Z)"},
		{"dev", nil, "prefrag devel (commit unknown, built unknown)"},
	} {
		if got := versionFrom(c.ver, c.bi, "", "$Format:%H %cI$"); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestHelpListsBenchEvidence: `prefrag help`, `prefrag bench --help` and
// `prefrag help bench evidence` all show `bench evidence`, with its --file.
func TestHelpListsBenchEvidence(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"bench", "--help"}, {"bench", "help"}, {"help", "bench", "evidence"}, {"bench", "evidence", "--help"}} {
		var stdout, stderr bytes.Buffer
		code := Main(args, strings.NewReader(""), &stdout, &stderr)
		if code != ExitOK || !strings.Contains(stdout.String(), "prefrag bench evidence --file F") {
			t.Errorf("%v: exit %d, output lacks bench evidence:\n%s%s", args, code, stdout.String(), stderr.String())
		}
	}
}
