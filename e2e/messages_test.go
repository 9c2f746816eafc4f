package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Issue 19 item 5: messages that point the right way. Each case gets its
// own sentence on stderr (one line) and its exit code.

// msgExpect runs args and checks the exit code and that stderr is one line
// holding every wanted piece and none of the unwanted ones.
func (w *world) msgExpect(args []string, code int, want []string, unwanted ...string) string {
	w.t.Helper()
	_, errOut, got := w.run(args...)
	w.msgCheck(args, errOut, got, code, want, unwanted...)
	return errOut
}

func (w *world) msgCheck(args []string, errOut string, got, code int, want []string, unwanted ...string) {
	w.t.Helper()
	if got != code {
		w.t.Errorf("%q: exit %d, want %d; stderr %q", args, got, code, errOut)
	}
	if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 {
		w.t.Errorf("%q: stderr is not one sentence: %q", args, errOut)
	}
	for _, s := range want {
		if !strings.Contains(errOut, s) {
			w.t.Errorf("%q: stderr %q lacks %q", args, errOut, s)
		}
	}
	for _, s := range unwanted {
		if strings.Contains(errOut, s) {
			w.t.Errorf("%q: stderr %q says %q", args, errOut, s)
		}
	}
}

// msgConfigFile writes the world's config file (XDG_CONFIG_HOME/prefrag).
func (w *world) msgConfigFile(text string) string {
	w.t.Helper()
	p := filepath.Join(w.home, "config", "prefrag", "config.toml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// A config file with an address that is not http(s), a negative duration
// or a prompts folder that does not exist is refused — by `prefrag config`
// and by every other command — with exit 2 and a sentence naming the key
// and the file. The same values given as flags are refused too.
func TestConfigValuesRefused(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	for _, tt := range []struct {
		name, file string
		want       []string
	}{
		{"ftp llm_url", "llm_url = \"ftp://x\"\n", []string{"llm_url in ", "must be an http:// or https:// address, not ftp://"}},
		{"negative web_cache_ttl", "web_cache_ttl = \"-5h\"\n", []string{"web_cache_ttl in ", "must not be negative, not -5h0m0s"}},
		{"negative web_timeout", "web_timeout = \"-1s\"\n", []string{"web_timeout in ", "must not be negative"}},
		{"negative llm_timeout", "llm_timeout = \"-1m\"\n", []string{"llm_timeout in ", "must not be negative"}},
		{"missing prompts_dir", "prompts_dir = \"/no/such/prompts\"\n", []string{"prompts_dir in ", `"/no/such/prompts", which does not exist`}},
		{"ftp searxng_url", "searxng_url = \"ftp://search.example\"\n", []string{"searxng_url in ", "must be an http:// or https:// address"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := w.msgConfigFile(tt.file)
			want := append([]string{p}, tt.want...)
			for _, args := range [][]string{{"config"}, {"sessions", "list"}, {"corpora"}} {
				w.msgExpect(args, 2, want)
			}
		})
	}
	w.msgConfigFile("")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "--llm-url", "ftp://x"}, "--llm-url must be an http:// or https:// address, not ftp://"},
		{[]string{"config", "--llm-timeout", "-5s"}, "--llm-timeout must not be negative"},
		{[]string{"config", "--prompts-dir", "/no/such/prompts"}, `--prompts-dir names the folder "/no/such/prompts", which does not exist`},
		{[]string{"ask", "--llm-url", "ftp://x", "Q?"}, "--llm-url must be an http:// or https:// address"},
	} {
		w.msgExpect(tt.args, 2, []string{tt.want})
	}
}

// `ask --continue ""` (an unset shell variable, say) is refused: it does
// not start a new thread.
func TestContinueEmptyRefused(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	for _, v := range []string{"", "  "} {
		w.msgExpect(w.askArgs("--continue", v, "and who else?"), 2, []string{`--continue needs a session id or "last"`, "leave the flag out"})
		w.msgExpect(w.askArgs("--continue="+v, "and who else?"), 2, []string{`--continue needs a session id or "last"`})
	}
	if out, _, _ := w.run("sessions", "list"); !strings.Contains(out, "No sessions") && !strings.Contains(out, "no sessions") {
		t.Errorf("a session was started: %s", out)
	}
	if n := len(w.llm.Generations()); n != 0 {
		t.Errorf("%d LLM calls for a refused --continue", n)
	}
}

// Remote index names "." and ".." (alone or in a list) would make the
// request path climb out of the index (/tenant/../_search): refused at
// registration with exit 2; a path separator was already refused.
func TestRemoteIndexDotsRefused(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	for _, idx := range []string{".", "..", "kb,..", "../x", `a\b`, "a/b"} {
		want := []string{"--index"}
		if idx == "." || idx == ".." || idx == "kb,.." {
			want = append(want, "is not an index name", "path step")
		}
		w.msgExpect([]string{"corpora", "add", "kb", "--elasticsearch", "http://127.0.0.1:9", "--index", idx}, 2, want)
	}
	if out, _, _ := w.run("corpora"); strings.Contains(out, "kb") {
		t.Errorf("a corpus was registered:\n%s", out)
	}
	// A name starting with a dot (a hidden index) is still an index.
	_, errOut, code := w.run("corpora", "add", "kb", "--elasticsearch", "http://127.0.0.1:9", "--index", ".kb-docs")
	if code != 0 {
		t.Errorf(".kb-docs refused: %d %s", code, errOut)
	}
}

// An unknown flag gets "did you mean" when one of the command's flags is
// close, on every subcommand; a far one names the help; an unknown config
// key gets the close key.
func TestDidYouMean(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ask", "--modle", "m", "Q?"}, "ask: unknown flag --modle — did you mean --model?"},
		{[]string{"--corpsu", "x"}, "did you mean --corpus?"},
		{[]string{"index", "--corpis", "x", "."}, "did you mean --corpus?"},
		{[]string{"search", "--jsno", "q"}, "did you mean --json?"},
		{[]string{"corpora", "--jsn"}, "did you mean --json?"},
		{[]string{"corpora", "add", "kb", "--elasticsearch", "http://127.0.0.1:9", "--indx", "kb"}, "did you mean --index?"},
		{[]string{"sessions", "list", "--stauts", "answered"}, "did you mean --status?"},
		{[]string{"sessions", "show", "x", "--jsonn"}, "did you mean --json?"},
		{[]string{"sessions", "export", "x", "--fromat", "md"}, "did you mean --format?"},
		{[]string{"sessions", "rerun", "x", "--ofline"}, "did you mean --offline?"},
		{[]string{"sessions", "rm", "--older-then", "3d"}, "did you mean --older-than?"},
		{[]string{"eval", "--dat", "x"}, "did you mean --data?"},
		{[]string{"bench", "engine", "--limt", "3"}, "did you mean --limit?"},
		{[]string{"config", "--max-step", "3"}, "config: unknown flag --max-step — did you mean --max-steps?"},
		{[]string{"ask", "--max-hops", "3", "Q?"}, "ask: unknown flag --max-hops; `prefrag help ask` lists its flags"},
		{[]string{"aks", "Q?"}, `unknown command "aks" — did you mean ask?`},
		{[]string{"sessions", "lsit"}, `unknown sessions command "lsit" — did you mean list?`},
		{[]string{"bench", "engin"}, `unknown bench "engin" — did you mean engine?`},
	} {
		w.msgExpect(tt.args, 2, []string{tt.want}, "provided but not defined")
	}
	p := w.msgConfigFile("tempature = 0.5\nmax_step = 4\nzzzz = 1\n")
	_, errOut, code := w.run("config")
	if code != 0 {
		t.Fatalf("config: exit %d %s", code, errOut)
	}
	for _, want := range []string{
		`unknown key "max_step" in ` + p + ` is ignored — did you mean "max_steps"?`,
		`unknown key "tempature" in ` + p + ` is ignored — did you mean "temperature"?`,
		`unknown key "zzzz" in ` + p + " is ignored (`prefrag config` lists the settings)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// msgRunFileLimit runs the binary with the file size limit of the process set
// to blocks×512 bytes (ulimit -f): a write past it fails with EFBIG, as a
// write to a full disk fails with ENOSPC. No privilege is needed.
func (w *world) msgRunFileLimit(blocks int, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sh := append([]string{"-c", `ulimit -f "$0" && exec "$@"`, strconv.Itoa(blocks), binary}, args...)
	cmd := exec.CommandContext(ctx, "sh", sh...)
	cmd.Env = w.env()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code <= 0 {
		w.t.Fatalf("%v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// A session database that cannot grow is reported as such — "no room
// left", the file, what to do — with exit 1: at open (the tester's case
// read "cannot be read (is it a prefrag database?)") and while a run
// appends its events. Reads keep working.
func TestFullDiskSaidAsSuch(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set ulimit -f")
	}
	w := newWorld(t, caseStudyScript())
	if _, errOut, code := w.run("sessions", "list"); code != 0 {
		t.Fatalf("sessions list: %s", errOut)
	}
	db := filepath.Join(w.home, "data", "prefrag.db")
	want := []string{"no room left to write the session database " + db, "ulimit -f, is reached", "raise the limit"}
	unwanted := []string{"is it a prefrag database", "damaged"}
	// Open: not one byte may be written.
	_, errOut, code := w.msgRunFileLimit(0, w.askArgs("--web", "never", caseQuestion)...)
	w.msgCheck([]string{"ask (ulimit -f 0)"}, errOut, code, 1, want, unwanted...)
	t.Logf("ulimit -f 0: %s", errOut)
	// A run: the database opens and the session is created (64 KiB of
	// -wal), its events do not fit.
	_, errOut, code = w.msgRunFileLimit(128, w.askArgs("--web", "never", caseQuestion)...)
	w.msgCheck([]string{"ask (ulimit -f 128)"}, errOut, code, 1, want, unwanted...)
	t.Logf("ulimit -f 128: %s", errOut)
	out, errOut, code := w.run("sessions", "list", "--json")
	if code != 0 {
		t.Fatalf("the database cannot be read after a full disk: %s", errOut)
	}
	if n := strings.Count(out, "\n"); n != 1 {
		t.Errorf("%d sessions stored, want the one the run opened before the disk filled:\n%s", n, out)
	}
}
