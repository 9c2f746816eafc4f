package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateConfigGolden = flag.Bool("update-config", false, "rewrite testdata/config.golden")

// configWorld points prefrag at a temporary home and config file.
func configWorld(t *testing.T, file string) string {
	t.Helper()
	dir := t.TempDir()
	for _, k := range []string{"OLLAMA_HOST", "PREFRAG_MODEL", "PREFRAG_SEARXNG_URL", "BRAVE_API_KEY", "PREFRAG_BRAVE_API_KEY", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", dir)
	t.Setenv("PREFRAG_HOME", filepath.Join(dir, "home"))
	t.Setenv("PREFRAG_CONFIG", filepath.Join(dir, "config.toml"))
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// `prefrag config` prints every effective setting with its origin on the
// same line; secrets only say whether they are set; an unknown key is a
// warning and the command still succeeds.
func TestConfigCommandGolden(t *testing.T) {
	dir := configWorld(t, "model = \"qwen2.5:7b\"\nk = 7\ncorpora = [\"wiki\", \"notes\"]\nllm_timeout = \"90s\"\n"+
		"brave_api_key = \"sk-very-secret\"\nmcp_token = \"mcp-very-secret\"\ntempature = 0.5\n")
	t.Setenv("OLLAMA_HOST", "0.0.0.0:11500")
	t.Setenv("PREFRAG_SEARXNG_URL", "http://user:pw@127.0.0.1:8888")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"config", "--temperature", "0.3", "--seed", "9", "--web-only"}, strings.NewReader(""), &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := "prefrag: warning: unknown key \"tempature\" in " + filepath.Join(dir, "config.toml") + " is ignored — did you mean \"temperature\"?\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	got := strings.ReplaceAll(stdout.String(), dir, "DIR")
	for _, secret := range []string{"sk-very-secret", "mcp-very-secret", "pw@"} {
		if strings.Contains(got, secret) {
			t.Fatalf("a secret is printed: %s", got)
		}
	}
	path := filepath.Join("testdata", "config.golden")
	if *updateConfigGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(b) {
		t.Errorf("prefrag config:\n%s\nwant (%s):\n%s", got, path, b)
	}
}

// Config errors exit 2 with one line: a syntax error names its line, an
// invalid key names the key and file (the settings are still printed),
// an invalid flag names the flag.
func TestConfigCommandErrors(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		args       []string
		stderr     string
		printed    bool
	}{
		{"syntax", "k = 7\nmodel = \"a\" \"b\"\n", nil, "config.toml has a syntax error on line 2, column", false},
		{"key", "temperature = 3\n", nil, "prefrag: temperature in DIR/config.toml must be between 0 and 2, not 3\n", true},
		{"flag", "", []string{"--top-p", "2"}, "prefrag: --top-p must be in (0, 1], not 2\n", true},
		{"positional", "", []string{"extra"}, "no positional", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := configWorld(t, tt.file)
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"config"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			errOut := strings.ReplaceAll(stderr.String(), dir, "DIR")
			if code != ExitUsage || !strings.Contains(errOut, tt.stderr) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.stderr)
			}
			if printed := strings.Contains(stdout.String(), "temperature = "); printed != tt.printed {
				t.Errorf("settings printed: %v, want %v:\n%s", printed, tt.printed, stdout.String())
			}
		})
	}
}

// TestOutputFlagsOnlyWhereUsed: --json and --tokens, output flags of `ask`,
// are refused (exit 2) by `config` and by the interactive app, where they
// would do nothing, with where they apply; their help there says so, and
// `ask` keeps them.
func TestOutputFlagsOnlyWhereUsed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"config", "--json"}, ExitUsage, "`prefrag config` prints the settings as text, so --json does nothing there: --json applies to `prefrag ask`"},
		{[]string{"config", "--model", "m", "--tokens"}, ExitUsage, "so --tokens does nothing there"},
		{[]string{"--json"}, ExitUsage, "the interactive app (`prefrag` alone) has no event output, so --json does nothing there: --json applies to `prefrag ask`"},
		{[]string{"--web", "never", "--tokens"}, ExitUsage, "so --tokens does nothing there"},
		{[]string{"config"}, ExitOK, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			configWorld(t, "")
			var stdout, stderr bytes.Buffer
			code := Main(tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d (want %d), stderr %q, want it to hold %q", code, tc.code, stderr.String(), tc.want)
			}
			if tc.code != ExitOK && stdout.Len() > 0 {
				t.Errorf("refused, yet printed: %s", stdout.String())
			}
		})
	}
	for cmd, want := range map[string]string{"config": "refused by config: --json applies to `prefrag ask`", "ask": "JSON Lines events on stdout"} {
		configWorld(t, "")
		var stdout, stderr bytes.Buffer
		Main([]string{cmd, "--help"}, strings.NewReader(""), &stdout, &stderr)
		if help := strings.Join(strings.Fields(stdout.String()), " "); !strings.Contains(help, want) {
			t.Errorf("%s --help lacks %q:\n%s", cmd, want, stdout.String())
		}
	}
}

// TestHeadlessAskPolicyNamesItsOrigin: headless, a chosen web policy "ask"
// acts as never, and the notice names where the policy came from — the
// flag, or the config file with its path — and how to change it there.
func TestHeadlessAskPolicyNamesItsOrigin(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		args       []string
		want       func(dir string) string
		not        string
	}{
		{"flag", "", []string{"--web", "ask"}, func(string) string {
			return "prefrag: --web ask (flag) needs the interactive app to ask in; headless it acts as never"
		}, "config.toml"},
		{"config file", "web = \"ask\"\n", nil, func(dir string) string {
			return "prefrag: web = \"ask\" (from " + filepath.Join(dir, "config.toml") + ") needs the interactive app to ask in; headless it acts as never (nothing is sent to the web); pass --web auto for this run, or set web = \"auto\" there"
		}, "--web ask (flag)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := configWorld(t, tc.file)
			args := append([]string{"ask", "--llm-url", "http://127.0.0.1:1"}, tc.args...)
			var stdout, stderr bytes.Buffer
			Main(append(args, "Who founded it?"), strings.NewReader(""), &stdout, &stderr)
			if want := tc.want(dir); !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
			if strings.Contains(stderr.String(), tc.not) {
				t.Errorf("stderr names %q:\n%s", tc.not, stderr.String())
			}
		})
	}
}

// TestConfigSaysWhatEmptyCorporaSearch: with no corpora in the settings,
// `prefrag config` says on the corpora line what `ask` searches: nothing
// while no corpus exists, nothing while none is pinned (naming those to
// pin), the pinned corpus once one is; a named list gets no note.
func TestConfigSaysWhatEmptyCorporaSearch(t *testing.T) {
	dir := configWorld(t, "")
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("# Velloran\n\nThe Velloran Institute was founded in 1887.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr.String())
		}
		return stdout.String()
	}
	corporaLine := func(args ...string) string {
		t.Helper()
		for _, l := range strings.Split(run(append([]string{"config"}, args...)...), "\n") {
			if strings.HasPrefix(l, "corpora = ") {
				return l
			}
		}
		t.Fatal("no corpora line")
		return ""
	}
	steps := []struct {
		before func()
		args   []string
		want   string
	}{
		{nil, nil, "corpora = []  (default)  # none named and none exists yet: ask searches no corpus and sends nothing to the web (without --web-only); create one with `prefrag index --corpus NAME FOLDER`"},
		{func() { run("index", "--corpus", "wiki", docs); run("corpora", "unpin") }, nil,
			"# none named and none pinned: ask searches no corpus and sends nothing to the web (without --web-only); pin one with `prefrag corpora pin NAME` (wiki) or pass --corpus NAME"},
		{func() { run("corpora", "pin", "wiki") }, nil, `corpora = []  (default)  # none named: ask and the app search the pinned corpus, "wiki"`},
		{nil, []string{"--corpus", "wiki"}, `corpora = ["wiki"]  (flag --corpus)`},
	}
	for i, st := range steps {
		if st.before != nil {
			st.before()
		}
		got := corporaLine(st.args...)
		if !strings.Contains(got, st.want) || (st.args != nil && strings.Contains(got, "#")) {
			t.Errorf("step %d: %q, want %q", i+1, got, st.want)
		}
	}
}
