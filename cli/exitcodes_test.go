package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// cliWorld is one user's machine for in-process command lines: a home and
// a config folder under a temporary directory, an environment of its own
// (the process's is not read), and, when asked for, a fake LLM server and
// an indexed corpus.
type cliWorld struct {
	t    *testing.T
	dir  string
	vars map[string]string
	llm  *fakellm.Server
}

func newCLIWorld(t *testing.T) *cliWorld {
	t.Helper()
	dir := t.TempDir()
	return &cliWorld{t: t, dir: dir, vars: map[string]string{
		"HOME":            dir,
		"PREFRAG_HOME":    filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"NO_COLOR":        "1",
	}}
}

// lookup is the world's environment.
func (w *cliWorld) lookup(name string) (string, bool) {
	v, ok := w.vars[name]
	return v, ok
}

// env is a fresh env of the world (its configuration loaded again, as a
// new process would), with its stdout and stderr.
func (w *cliWorld) env(stdin string) (*env, *bytes.Buffer, *bytes.Buffer) {
	w.t.Helper()
	cfg, err := config.Load(w.lookup)
	if err != nil {
		w.t.Fatalf("config: %v", err)
	}
	var out, errOut bytes.Buffer
	getenv := func(name string) string { v, _ := w.lookup(name); return v }
	return &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, cfg: cfg, ctx: context.Background(), getenv: getenv}, &out, &errOut
}

// run runs one command line in process and returns its exit status and
// output.
func (w *cliWorld) run(args ...string) (code int, stdout, stderr string) {
	w.t.Helper()
	e, out, errOut := w.env("")
	code = dispatch(e, args)
	return code, out.String(), errOut.String()
}

// must runs a command line that has to succeed.
func (w *cliWorld) must(args ...string) string {
	w.t.Helper()
	code, out, errOut := w.run(args...)
	if code != ExitOK {
		w.t.Fatalf("%q: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

// path is a path under the world's directory.
func (w *cliWorld) path(parts ...string) string {
	return filepath.Join(append([]string{w.dir}, parts...)...)
}

// write writes a file under the world's directory and returns its path.
func (w *cliWorld) write(name, text string) string {
	w.t.Helper()
	p := w.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// docs is a folder of two small documents.
func (w *cliWorld) docs() string {
	w.write("docs/sorensen.md", "# S. P. L. Sørensen\n\nSøren Sørensen (1868–1939) was a Danish chemist who introduced the concept of pH.\n")
	w.write("docs/carlsberg.txt", "The Carlsberg Laboratory in Copenhagen was founded in 1875.\n")
	return w.path("docs")
}

// corpus indexes the documents into corpus wiki (pinned: the first).
func (w *cliWorld) corpus() {
	w.t.Helper()
	w.must("index", "--corpus", "wiki", w.docs())
}

// answerScript answers at once, with no search.
func answerScript() *fakellm.Script {
	return &fakellm.Script{Steps: []string{
		"Thought: I know this.\nFinal Answer: 1939\nSelf-Evaluation: CORRECT\nExplanation: known.\nImprovement Suggestions: None",
		"Thought: I know this.\nFinal Answer: 1939\nSelf-Evaluation: CORRECT\nExplanation: known.\nImprovement Suggestions: None",
	}}
}

// askFlags point a command at the world's fake LLM (started on first use),
// with the web off.
func (w *cliWorld) askFlags() []string {
	if w.llm == nil {
		w.llm = fakellm.New(w.t, answerScript())
	}
	return []string{"--llm-url", w.llm.URL(), "--model", fakellm.DefaultModel, "--web", "never"}
}

// session asks one question and returns the id of its stored session.
func (w *cliWorld) session() string {
	w.t.Helper()
	w.must(append(append([]string{"ask"}, w.askFlags()...), "When did Sørensen die?")...)
	out := w.must("sessions", "list", "--json")
	id, _, _ := strings.Cut(strings.TrimPrefix(out, `{"id":"`), `"`)
	if id == "" {
		w.t.Fatalf("no session listed: %q", out)
	}
	return id
}

// busyAddr is a loopback address something already listens on.
func busyAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// exitRow is one command line of TestExitCodes: what it needs, its
// arguments in that world, the exit status it must end with, and what its
// stderr must say (a usage or runtime error says what to do).
type exitRow struct {
	name   string
	setup  func(w *cliWorld) // before; nil: an empty home
	args   func(w *cliWorld) []string
	want   int
	stderr string
}

// fixed is a row's arguments when they do not depend on its world.
func fixed(args ...string) func(*cliWorld) []string { return func(*cliWorld) []string { return args } }

// withCorpus is the setup of a row that needs corpus wiki.
func withCorpus(w *cliWorld) { w.corpus() }

// exitRows are the command lines of TestExitCodes, command by command.
var exitRows = []exitRow{
	// ask
	{"ask answers", nil, func(w *cliWorld) []string {
		return append(append([]string{"ask"}, w.askFlags()...), "When did Sørensen die?")
	}, ExitOK, ""},
	{"ask no question", nil, fixed("ask"), ExitUsage, "ask needs a question"},
	{"ask bad flag", nil, fixed("ask", "--max-stepz", "2", "q"), ExitUsage, "did you mean --max-steps"},
	{"ask bad value", nil, fixed("ask", "--top-p", "2", "q"), ExitUsage, "--top-p"},
	{"ask LLM unreachable", nil, func(w *cliWorld) []string {
		return []string{"ask", "--llm-url", fakellm.ClosedURL(w.t), "--web", "never", "q?"}
	}, ExitFailure, "cannot reach"},
	// the workspace
	{"tui argument", nil, fixed("--model", "m", "question"), ExitUsage, "prefrag ask"},
	{"tui refuses --json", nil, fixed("--json"), ExitUsage, "--json does nothing there"},
	{"tui no terminal", nil, fixed("--model", "m"), ExitFailure, "needs a terminal"},
	{"unknown command", nil, fixed("serach", "x"), ExitUsage, "did you mean search"},
	// index
	{"index", nil, func(w *cliWorld) []string { return []string{"index", "--corpus", "wiki", w.docs()} }, ExitOK, ""},
	{"index flags after paths", nil, func(w *cliWorld) []string { return []string{"index", w.docs(), "--corpus", "wiki", "--json"} }, ExitOK, ""},
	{"index no path", nil, fixed("index", "--corpus", "wiki"), ExitUsage, "at least one file"},
	{"index qa and paths", nil, fixed("index", "--from-qa", "qa.jsonl", "docs"), ExitUsage, "takes no other paths"},
	{"index bad name", nil, func(w *cliWorld) []string { return []string{"index", "--corpus", "../x", w.docs()} }, ExitUsage, ""},
	{"index missing path", nil, func(w *cliWorld) []string { return []string{"index", w.path("nope")} }, ExitFailure, "cannot read"},
	{"index reembed no model", withCorpus, fixed("index", "--reembed", "--corpus", "wiki"), ExitUsage, "--embed-model"},
	// corpora
	{"corpora", withCorpus, fixed("corpora"), ExitOK, ""},
	{"corpora json", withCorpus, fixed("corpora", "--json"), ExitOK, ""},
	{"corpora pin", withCorpus, fixed("corpora", "pin", "wiki"), ExitOK, ""},
	{"corpora unpin", withCorpus, fixed("corpora", "unpin"), ExitOK, ""},
	{"corpora rm --yes", withCorpus, fixed("corpora", "rm", "wiki", "--yes"), ExitOK, ""},
	{"corpora unknown", nil, fixed("corpora", "pinn", "x"), ExitUsage, "unknown corpora command"},
	{"corpora pin no name", nil, fixed("corpora", "pin"), ExitUsage, "usage"},
	{"corpora rm no terminal", withCorpus, fixed("corpora", "rm", "wiki"), ExitUsage, "--yes"},
	{"corpora pin missing", withCorpus, fixed("corpora", "pin", "nope"), ExitFailure, "nope"},
	{"corpora rm missing", withCorpus, fixed("corpora", "rm", "nope", "--yes"), ExitFailure, "nope"},
	{"corpora add no name", nil, fixed("corpora", "add", "--index", "i"), ExitUsage, "usage"},
	{"corpora add, cluster down", nil, func(w *cliWorld) []string {
		return []string{"corpora", "add", "kb", "--elasticsearch", fakellm.ClosedURL(w.t), "--index", "docs"}
	}, ExitOK, "cannot be searched now"},
	{"corpora add twice", func(w *cliWorld) { w.must("corpora", "add", "kb", "--manticore", "127.0.0.1:1", "--index", "docs") },
		fixed("corpora", "add", "kb", "--manticore", "127.0.0.1:1", "--index", "docs"), ExitUsage, "kb"},
	{"corpora add two engines", nil, fixed("corpora", "--index", "docs", "add", "kb", "--manticore", "h:1", "--elasticsearch", "http://h:2"), ExitUsage, "one of"},
	{"index into a remote corpus", func(w *cliWorld) { w.must("corpora", "add", "kb", "--manticore", "127.0.0.1:1", "--index", "docs") },
		func(w *cliWorld) []string { return []string{"index", "--corpus", "kb", w.docs()} }, ExitUsage, "remote corpus"},
	// search
	{"search", withCorpus, fixed("search", "pH", "--json", "-k", "2"), ExitOK, ""},
	{"search no query", withCorpus, fixed("search", "--corpus", "wiki"), ExitUsage, "needs a query"},
	{"search bad k", withCorpus, fixed("search", "-k", "0", "pH"), ExitUsage, "-k"},
	{"search no corpus", nil, fixed("search", "pH"), ExitFailure, "no corpus yet"},
	{"search missing corpus", withCorpus, fixed("search", "--corpus", "nope", "pH"), ExitFailure, "nope"},
	// sources
	{"sources", withCorpus, fixed("sources", "--no-connect"), ExitOK, ""},
	{"sources json", withCorpus, fixed("sources", "--json", "--no-connect"), ExitOK, ""},
	{"sources unknown", nil, fixed("sources", "chekc"), ExitUsage, "unknown sources command"},
	{"sources check", withCorpus, fixed("sources", "check", "wiki"), ExitOK, ""},
	{"sources check no name", nil, fixed("sources", "check"), ExitUsage, "usage"},
	{"sources check unknown source", withCorpus, fixed("sources", "check", "nope"), ExitUsage, ""},
	{"sources check fails", func(w *cliWorld) {
		w.write("config/prefrag/mcp.json", `{"mcpServers": {"gone": {"command": "`+w.path("no-such-server")+`"}}}`)
	}, fixed("sources", "check", "mcp:gone"), ExitFailure, "failed"},
	// sessions
	{"sessions list", nil, fixed("sessions", "list"), ExitOK, ""},
	{"sessions default", nil, fixed("sessions"), ExitOK, ""},
	{"sessions list json", nil, fixed("sessions", "list", "--json", "--status", "answered"), ExitOK, ""},
	{"sessions list bad since", nil, fixed("sessions", "list", "--since", "yesterday"), ExitUsage, "--since"},
	{"sessions unknown", nil, fixed("sessions", "shwo"), ExitUsage, "did you mean show"},
	{"sessions show", nil, func(w *cliWorld) []string { return []string{"sessions", "show", w.session()} }, ExitOK, ""},
	{"sessions show json after id", nil, func(w *cliWorld) []string { return []string{"sessions", "show", w.session(), "--json"} }, ExitOK, ""},
	{"sessions show last", nil, func(w *cliWorld) []string { w.session(); return []string{"sessions", "show", "last"} }, ExitOK, ""},
	{"sessions show no id", nil, fixed("sessions", "show"), ExitUsage, "usage"},
	{"sessions show missing", nil, fixed("sessions", "show", "0123456789"), ExitFailure, ""},
	{"sessions show last none", nil, fixed("sessions", "show", "last"), ExitFailure, "no session yet"},
	{"sessions search", nil, func(w *cliWorld) []string { w.session(); return []string{"sessions", "search", "Sørensen", "--json"} }, ExitOK, ""},
	{"sessions search no words", nil, fixed("sessions", "search"), ExitUsage, "usage"},
	{"sessions export", nil, func(w *cliWorld) []string {
		return []string{"sessions", "export", w.session(), "--format", "json", "-o", w.path("out.json")}
	}, ExitOK, ""},
	{"sessions export all", nil, func(w *cliWorld) []string {
		w.session()
		return []string{"sessions", "export", "--all", "--format", "md"}
	}, ExitOK, ""},
	{"sessions export bad format", nil, fixed("sessions", "export", "x", "--format", "doc"), ExitUsage, "--format"},
	{"sessions export nothing named", nil, fixed("sessions", "export", "--format", "md"), ExitUsage, "--all"},
	{"sessions export all bad since", nil, fixed("sessions", "export", "--all", "--since", "x"), ExitUsage, "--since"},
	{"sessions export none match", nil, fixed("sessions", "export", "--all"), ExitFailure, "no session matches"},
	{"sessions export exists", nil, func(w *cliWorld) []string {
		return []string{"sessions", "export", w.session(), "-o", w.write("out.md", "mine")}
	}, ExitFailure, "--force"},
	{"sessions import", nil, func(w *cliWorld) []string {
		id := w.session()
		w.must("sessions", "export", id, "--format", "json", "-o", w.path("s.json"))
		w.must("sessions", "rm", id, "--yes")
		return []string{"sessions", "import", w.path("s.json")}
	}, ExitOK, ""},
	{"sessions import no file", nil, fixed("sessions", "import"), ExitUsage, "usage"},
	{"sessions import missing", nil, func(w *cliWorld) []string { return []string{"sessions", "import", w.path("none.json")} }, ExitFailure, ""},
	{"sessions import not an export", nil, func(w *cliWorld) []string {
		return []string{"sessions", "import", w.write("bad.json", `{"x": 1}`)}
	}, ExitFailure, "cannot import"},
	{"sessions rerun", nil, func(w *cliWorld) []string {
		return append([]string{"sessions", "rerun", w.session(), "--json"}, w.askFlags()[:4]...)
	}, ExitOK, ""},
	{"sessions rerun no id", nil, fixed("sessions", "rerun"), ExitUsage, "usage"},
	{"sessions rerun empty model", nil, fixed("sessions", "rerun", "x", "--model", ""), ExitUsage, "--model"},
	{"sessions rerun missing", nil, fixed("sessions", "rerun", "0123456789"), ExitFailure, ""},
	{"sessions rm", nil, func(w *cliWorld) []string { return []string{"sessions", "rm", w.session(), "--yes"} }, ExitOK, ""},
	{"sessions rm older", nil, fixed("sessions", "rm", "--older-than", "30d", "--yes"), ExitOK, ""},
	{"sessions rm nothing named", nil, fixed("sessions", "rm"), ExitUsage, "usage"},
	{"sessions rm bad age", nil, fixed("sessions", "rm", "--older-than", "old"), ExitUsage, "--older-than"},
	{"sessions rm no terminal", nil, func(w *cliWorld) []string { return []string{"sessions", "rm", w.session()} }, ExitUsage, "--yes"},
	{"sessions rm missing", nil, fixed("sessions", "rm", "0123456789", "--yes"), ExitFailure, ""},
	// eval
	{"eval no data", nil, fixed("eval"), ExitUsage, "needs a QA file"},
	{"eval positional", nil, fixed("eval", "qa.jsonl"), ExitUsage, "no positional"},
	{"eval bad parallel", nil, func(w *cliWorld) []string {
		return []string{"eval", "--data", w.write("qa.jsonl", `{"question": "Q?", "answer": "A"}`+"\n"), "--parallel", "0"}
	}, ExitUsage, "--parallel"},
	{"eval LLM unreachable", nil, func(w *cliWorld) []string {
		qa := w.write("qa.jsonl", `{"question": "Q?", "answer": "A"}`+"\n")
		return []string{"eval", "--data", qa, "--web", "never", "--llm-url", fakellm.ClosedURL(w.t), "--out", w.path("results")}
	}, ExitFailure, "cannot reach"},
	{"eval report missing", nil, func(w *cliWorld) []string { return []string{"eval", "--report", "--out", w.path("none")} }, ExitUsage, "no results folder"},
	{"eval report", func(w *cliWorld) { os.MkdirAll(w.path("results"), 0o755) }, func(w *cliWorld) []string {
		return []string{"eval", "--report", "--out", w.path("results"), "--json"}
	}, ExitOK, ""},
	// bench
	{"bench no subcommand", nil, fixed("bench"), ExitUsage, "usage"},
	{"bench unknown", nil, fixed("bench", "engin"), ExitUsage, "did you mean engine"},
	{"bench engine", nil, fixed("bench", "engine", "--limit", "3", "--json"), ExitOK, ""},
	{"bench engine bad holdout", nil, fixed("bench", "engine", "--holdout", "3"), ExitUsage, "--holdout"},
	{"bench engine bad data", nil, func(w *cliWorld) []string { return []string{"bench", "engine", "--data", w.path("none.jsonl")} }, ExitUsage, ""},
	{"bench evidence", nil, fixed("bench", "evidence", "--file", tinyEvidence, "--json"), ExitOK, ""},
	{"bench evidence no file", nil, fixed("bench", "evidence"), ExitUsage, "--file"},
	{"bench retrieval positional", nil, fixed("bench", "retrieval", "--data", ".", "x"), ExitUsage, "no arguments"},
	{"bench retrieval no ir", nil, func(w *cliWorld) []string { return []string{"bench", "retrieval", "--data", w.dir} }, ExitUsage, "no ir/"},
	{"bench retrieval fails", func(w *cliWorld) { w.write("shared/ir/vaswani/README", "not a collection") }, func(w *cliWorld) []string {
		return []string{"bench", "retrieval", "--data", w.path("shared"), "--datasets", "vaswani", "--work", w.path("work")}
	}, ExitFailure, "retrieval benchmark"},
	// config
	{"config", nil, fixed("config", "--model", "m"), ExitOK, ""},
	{"config bad value", nil, fixed("config", "--top-p", "2"), ExitUsage, "--top-p"},
	{"config positional", nil, fixed("config", "x"), ExitUsage, "no positional"},
	{"config refuses --json", nil, fixed("config", "--json"), ExitUsage, "does nothing there"},
	{"config never-leave unknown", withCorpus, fixed("config", "--never-leave", "nope"), ExitUsage, ""},
	// mcp
	{"mcp stdio, no client", nil, fixed("mcp", "--model", "m"), ExitOK, ""},
	{"mcp positional", nil, fixed("mcp", "x"), ExitUsage, "no arguments"},
	{"mcp refuses --tokens", nil, fixed("mcp", "--tokens"), ExitUsage, "does nothing there"},
	{"mcp open address without token", nil, fixed("mcp", "--http", "0.0.0.0:8765"), ExitUsage, "token"},
	// A never-leave corpus is not served to other machines (192.0.2.1
	// is a documentation address: nothing is ever bound there).
	{"mcp never-leave beyond loopback", withCorpus, fixed("mcp", "--http", "192.0.2.1:8765", "--token", "t", "--never-leave", "wiki"), ExitUsage, "never-leave wiki would leave"},
	{"mcp never-leave on loopback", withCorpus, func(w *cliWorld) []string {
		return []string{"mcp", "--http", busyAddr(w.t), "--never-leave", "wiki"}
	}, ExitFailure, "cannot listen"},
	{"mcp address in use", nil, func(w *cliWorld) []string { return []string{"mcp", "--http", busyAddr(w.t)} }, ExitFailure, "cannot listen"},
	// demo
	{"demo ask", nil, func(w *cliWorld) []string { return []string{"demo", "--ask", "--home", w.path("demo")} }, ExitOK, ""},
	{"demo json", nil, func(w *cliWorld) []string { return []string{"demo", "--home", w.path("demo"), "--json"} }, ExitOK, ""},
	{"demo bad flag", nil, fixed("demo", "--aks"), ExitUsage, "did you mean --ask"},
	{"demo home is a file", nil, func(w *cliWorld) []string { return []string{"demo", "--ask", "--home", w.write("file", "x")} }, ExitUsage, "not a directory"},
	// help, completion, version
	{"help", nil, fixed("help"), ExitOK, ""},
	{"help command", nil, fixed("help", "sessions", "export"), ExitOK, ""},
	{"command -h", nil, fixed("search", "-h"), ExitOK, ""},
	{"help unknown", nil, fixed("help", "nope"), ExitUsage, "unknown command"},
	{"completion", nil, fixed("completion", "fish"), ExitOK, ""},
	{"completion unknown shell", nil, fixed("completion", "tcsh"), ExitUsage, "usage"},
	{"version", nil, fixed("version"), ExitOK, ""},
}

// The CONTRACT's exit status of every command, through dispatch (Main
// without the process): 0 success, 1 runtime failure, 2 usage error. Each
// row builds what it needs in a world of its own, with an environment of
// its own: the rows run in parallel.
func TestExitCodes(t *testing.T) {
	for _, r := range exitRows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			w := newCLIWorld(t)
			if r.setup != nil {
				r.setup(w)
			}
			args := r.args(w)
			code, out, errOut := w.run(args...)
			if code != r.want {
				t.Errorf("%q: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, r.want, out, errOut)
			}
			if !strings.Contains(errOut, r.stderr) {
				t.Errorf("%q: stderr %q, want it to say %q", args, errOut, r.stderr)
			}
			if r.want != ExitOK && strings.Count(strings.TrimSpace(errOut), "\n") > 8 {
				t.Errorf("%q: a failure should say what went wrong in a few lines, not:\n%s", args, errOut)
			}
		})
	}
}
