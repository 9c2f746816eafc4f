package cli

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prefrag/prefrag/config"
)

// cmdHelp is the per-command help text: a one-line description and a few
// examples, keyed by the command's flag set name ("ask", "sessions list").
type cmdHelp struct {
	desc     string
	examples []string
}

var helpTexts = map[string]cmdHelp{
	"prefrag": {"Open the interactive workspace (TUI).", []string{
		"prefrag",
		"prefrag --model qwen3:8b --corpus papers"}},
	"ask": {"Answer one question headless, streaming the steps to stdout.", []string{
		`prefrag ask "What does the PrefRAG paper propose?"`,
		`prefrag ask --corpus papers --max-steps 4 "Who founded X?"`,
		`prefrag ask --json "Question" > events.jsonl`,
		`prefrag ask --continue last "and where did he study?"`}},
	"demo": {"Try prefrag without a model: the whole loop on a bundled sample corpus, with a scripted model (it follows a script for the sample questions) and a web stand-in (canned pages searched in process; nothing leaves this machine). It keeps its own sessions, in $PREFRAG_HOME/demo unless --home says where.", []string{
		"prefrag demo",
		"prefrag demo --ask",
		`prefrag demo --ask "When was the Velloran harbour board founded, and what did it commission?"`,
		"prefrag demo --json > demo-events.jsonl"}},
	"index": {"Ingest files and folders into a corpus (default: the pinned one).", []string{
		"prefrag index ~/papers",
		"prefrag index --corpus notes notes/*.md"}},
	"corpora": {"List corpora; pin or unpin the preferred one; remove one (asks, or --yes).", []string{
		"prefrag corpora",
		"prefrag corpora pin papers",
		"prefrag corpora rm old --yes",
		"prefrag corpora add kb --elasticsearch http://127.0.0.1:9200 --index docs --api-key-env KB_KEY"}},
	"sources": {"List every source a question searches, in preference order: corpora, MCP servers (declared in mcp.json), the web; with each one's kind, whether a query to it leaves the machine, its state and an MCP server's search tool.", []string{
		"prefrag sources",
		"prefrag sources --json --no-connect",
		"prefrag sources --prefer mcp:memory,notes"}},
	"sources check": {"Connect to one source, list an MCP server's tools, run one search and say what came back (exit 1 when it fails).", []string{
		"prefrag sources check mcp:memory",
		"prefrag sources check notes --query \"billing pipeline\""}},
	"search": {"Search a corpus with no LLM and no web: by words (BM25), and by meaning too when it has vectors (--retrieval; the query is embedded by the embedding server).", []string{
		`prefrag search "retrieval augmented generation"`,
		`prefrag search --corpus papers -k 5 --json "BM25"`}},
	"sessions": {"List, show, search, export, import, re-run or remove stored sessions.", []string{
		"prefrag sessions list --status answered -n 10",
		"prefrag sessions show 3f2a",
		"prefrag sessions export 3f2a --format md -o answer.md"}},
	"sessions list": {"List stored sessions, newest first.", []string{
		"prefrag sessions list",
		"prefrag sessions list --status failed --since 72h --json"}},
	"sessions show": {"Show one session's steps and answer (ID, a unique prefix, or last for the newest).", []string{
		"prefrag sessions show 3f2a",
		"prefrag sessions show 3f2a --json",
		"prefrag sessions show last"}},
	"sessions search": {"Find sessions whose question or answer contain the words.", []string{
		"prefrag sessions search BM25 ranking"}},
	"sessions export": {"Export sessions to a file or to stdout, in one of the formats --format lists.", []string{
		"prefrag sessions export 3f2a --format md -o answer.md",
		"prefrag sessions export 3f2a --format html -o report.html",
		"prefrag sessions export --all --status answered --format jsonl -o all.jsonl"}},
	"sessions import": {"Import a session from a JSON export.", []string{
		"prefrag sessions import session.json"}},
	"sessions rerun": {"Run a stored session's question again with its settings, never with looser privacy than the recording or today's configuration unless --web or --never-leave says so.", []string{
		"prefrag sessions rerun 3f2a",
		"prefrag sessions rerun 3f2a --offline",
		"prefrag sessions rerun 3f2a --web never",
		"prefrag sessions rerun last --never-leave notes"}},
	"sessions rm": {"Delete sessions with their events and verdicts (asks on a terminal, or --yes).", []string{
		"prefrag sessions rm 3f2a",
		"prefrag sessions rm --older-than 30d --yes"}},
	"eval": {"Evaluate strategies on a QA file (question-answer evaluation).", []string{
		"prefrag eval --data qa.jsonl",
		"prefrag eval --data qa.jsonl --strategies prefrag,naive --limit 20"}},
	"bench retrieval": {"Benchmark retrieval quality and speed on the shared IR collections.", []string{
		"prefrag bench retrieval",
		"prefrag bench retrieval --json"}},
	"bench engine": {"Benchmark the engine: overhead per LLM call and prompt reuse.", []string{
		"prefrag bench engine --limit 10",
		"prefrag bench engine --strategies prefrag,naive --json"}},
	"bench evidence": {"Benchmark the evidence aligner: supporting-sentence precision, recall and F1 on multi-hop QA questions.", []string{
		"prefrag bench evidence --file hotpot.json",
		"prefrag bench evidence --file 2wiki.jsonl --systems aligner --limit 100 --json"}},
	"mcp": {"Serve prefrag to MCP clients (agents): over stdio, or streamable HTTP at http://ADDR/mcp with --http.", []string{
		"prefrag mcp",
		"prefrag mcp --model qwen3:8b --corpus papers --web never",
		"prefrag mcp --http 127.0.0.1:8765",
		`prefrag mcp --http 0.0.0.0:8765 --token "$PREFRAG_MCP_TOKEN"`}},
	"config": {"Print the config file path and every effective setting with its origin.", []string{
		"prefrag config",
		"prefrag config --model qwen3:8b"}},
}

// helpFlags prints a command's help for -h: description, usage, the flags
// aligned in two columns, and examples.
func helpFlags(w io.Writer, fs *flag.FlagSet, usage string) {
	writeHelp(w, fs, usage, nil)
}

// helpRunFlags is helpFlags for a command that takes the run flags: each
// default is the built-in one, and a value from the config file or the
// environment is shown as such.
func helpRunFlags(e *env, fs *flag.FlagSet, usage string) {
	writeHelp(e.stdout, fs, usage, e.cfg.FlagDefaults())
}

func writeHelp(w io.Writer, fs *flag.FlagSet, usage string, defaults map[string]config.FlagDefault) {
	h := helpTexts[fs.Name()]
	if h.desc != "" {
		fmt.Fprintf(w, "%s\n\n", h.desc)
	}
	fmt.Fprintf(w, "Usage:\n  prefrag %s\n", usage)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nFlags:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				name, usage = "", f.Usage
			}
			if g, ok := f.Value.(flag.Getter); ok && name == "value" {
				if _, isDuration := g.Get().(time.Duration); isDuration {
					name = "duration" // a duration flag that names its limit
				}
			}
			if name == "value" {
				name = "NAME" // a repeatable list
			}
			left := "--" + f.Name
			if len(f.Name) == 1 {
				left = "-" + f.Name
			}
			if name != "" {
				left += " " + name
			}
			usage = strings.Join(strings.Fields(usage), " ")
			if d, ok := defaults[f.Name]; ok {
				usage += defaultText(d)
			} else if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(tw, "  %s\t%s\n", left, usage)
		})
		tw.Flush()
	}
	printExamples(w, h.examples)
	printManual(w, fs.Name())
}

// manualPages names the page of the manual (docs/ in prefrag's source
// tree) that a command's help points to; the longest matching command
// name wins ("sessions export" before "sessions").
var manualPages = map[string]string{
	"prefrag":         "docs/using.md",
	"ask":             "docs/using.md",
	"demo":            "docs/using.md#try-it-without-a-model",
	"index":           "docs/corpora.md",
	"search":          "docs/corpora.md",
	"corpora":         "docs/corpora.md",
	"corpora add":     "docs/remote-corpora.md",
	"sources":         "docs/mcp-sources.md",
	"sessions":        "docs/using.md#sessions-and-exports",
	"eval":            "docs/evaluation.md",
	"bench":           "docs/benchmarks.md",
	"config":          "docs/configuration.md",
	"mcp":             "docs/mcp-server.md",
	"completion":      "docs/using.md",
	"sessions rerun":  "docs/threads.md#rerunning-a-session",
	"bench evidence":  "docs/benchmarks.md",
	"bench retrieval": "docs/benchmarks.md",
	"bench engine":    "docs/evaluation.md",
}

// manualPage is the manual page for command name, "" when none.
func manualPage(name string) string {
	for n := name; n != ""; {
		if p, ok := manualPages[n]; ok {
			return p
		}
		i := strings.LastIndexByte(n, ' ')
		if i < 0 {
			break
		}
		n = n[:i]
	}
	return ""
}

// printManual ends a command's help with the page of the manual that
// covers it.
func printManual(w io.Writer, name string) {
	if p := manualPage(name); p != "" {
		fmt.Fprintf(w, "\nManual: %s (in prefrag's source tree)\n", p)
	}
}

// defaultText is " (default X)", " (default X; config file: Y)", or "
// (config file: Y)" when there is no built-in value.
func defaultText(d config.FlagDefault) string {
	var parts []string
	if d.Builtin != "" {
		parts = append(parts, "default "+d.Builtin)
	}
	if d.From != "" && d.Set != d.Builtin {
		parts = append(parts, d.From+": "+d.Set)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func printExamples(w io.Writer, ex []string) {
	if len(ex) == 0 {
		return
	}
	fmt.Fprintln(w, "\nExamples:")
	for _, x := range ex {
		fmt.Fprintf(w, "  %s\n", x)
	}
}

// sessionsHelp is `prefrag sessions --help`.
func sessionsHelp(w io.Writer) {
	h := helpTexts["sessions"]
	fmt.Fprintf(w, "%s\n\nUsage:\n", h.desc)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range sessionSubcommands {
		fmt.Fprintf(tw, "  prefrag sessions %s\t%s\n", s.args, s.help)
	}
	tw.Flush()
	printExamples(w, h.examples)
	fmt.Fprintln(w, "\nRun `prefrag help sessions SUBCOMMAND` for its flags.")
	printManual(w, "sessions")
}

var sessionSubcommands = []struct{ name, args, help string }{
	{"list", "list [flags]", "list stored sessions"},
	{"show", "show ID|last [--json]", "show one session"},
	{"search", "search WORDS", "find sessions by words"},
	{"export", "export ID... | --all [filters] --format F", "export sessions"},
	{"import", "import FILE", "import a JSON export"},
	{"rerun", "rerun ID|last [--offline] [--web auto|ask|never] [--never-leave NAME] [--llm B] [--llm-url URL] [--model M] [--json]", "run a session's question again"},
	{"rm", "rm ID... | --older-than DURATION [--yes]", "delete sessions (asks, or --yes)"},
}

// runHelp is `prefrag help [CMD [SUB]]`: the command's own -h.
func runHelp(e *env, args []string) int {
	if len(args) == 0 {
		printUsage(e.stdout)
		return ExitOK
	}
	switch args[0] {
	case "completion":
		return exitCode(e.stderr, newCmd(parseCompletion, runCompletion)(e, []string{"-h"}))
	case "help", "version":
		printUsage(e.stdout)
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			a := append(append([]string{}, args[1:]...), "-h")
			return exitCode(e.stderr, c.run(e, a))
		}
	}
	fmt.Fprintln(e.stderr, "prefrag:", unknownCommand(args[0]))
	return ExitUsage
}

// versionString is "prefrag VERSION (commit REV[-dirty], built TIME)" from
// the build information Go records in the binary.
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(Version, bi, Commit, archiveStamp)
}

// versionFrom prefers a commit given with -ldflags, then the VCS
// information Go stamped (a build in a git checkout), then the stamp
// `git archive` wrote (a build from a source tarball).
func versionFrom(version string, bi *debug.BuildInfo, commit, stamp string) string {
	v, rev, at, dirty := version, "", "", false
	if bi != nil {
		if v == "dev" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" || v == "(devel)" || v == "dev" {
		v = "devel"
	}
	if rev == "" {
		rev, at = stampedCommit(stamp)
	}
	if commit != "" {
		rev, dirty = commit, false
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		rev = "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	if at == "" {
		at = "unknown"
	}
	return fmt.Sprintf("prefrag %s (commit %s, built %s)", v, rev, at)
}
