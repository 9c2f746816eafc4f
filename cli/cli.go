// Package cli implements prefrag's command line (CONTRACT.md): subcommands,
// flags, exit codes and the text and JSON output of each command.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/suggest"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/store"
)

// Exit codes (CONTRACT.md).
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// usageError marks a command-line mistake (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// env is what every command runs with (gh's Factory): the streams, the
// configuration (defaults, file and environment, before the command's
// flags), the environment lookup and the context.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	cfg            *config.Config
	ctx            context.Context
	// getenv reads the process environment (os.Getenv in Main).
	getenv func(string) string
}

// A command is its options struct and two functions, after gh's
// NewCmdX(f, runF) with an XOptions, on the flag package:
//
//   - parseX(e, args) fills the options from the flags (before or after
//     the positional arguments), the configuration and the environment;
//     it prints the help for -h (flag.ErrHelp, exit 0) and returns every
//     usage error it can see without doing the work (exit 2);
//   - runX(e, o) does the work with the options alone (exit 1 when it
//     fails).
//
// newCmd joins them for the command table; a test calls parseX to check
// the flags and runX to run a command without a command line, and
// dispatch for the exit status of a whole command line.
type command struct {
	name, args, help string
	run              func(e *env, args []string) error
}

// newCmd is the command that parses its arguments with parse and, when
// they are good, runs run with the options.
func newCmd[O any](parse func(*env, []string) (*O, error), run func(*env, *O) error) func(*env, []string) error {
	return func(e *env, args []string) error {
		o, err := parse(e, args)
		if err != nil {
			return err
		}
		return run(e, o)
	}
}

func commands() []command {
	return []command{
		{"ask", "[flags] QUESTION", "answer one question headless, streaming steps to stdout", askCommand},
		{"demo", "[--ask [--json] [QUESTION]]", "try prefrag without a model: a sample corpus, a scripted model and a web stand-in", newCmd(parseDemo, runDemo)},
		{"index", "[--corpus NAME] PATH...", "ingest files and folders into a corpus", newCmd(parseIndex, runIndex)},
		{"corpora", "[--json] | pin NAME | unpin | rm NAME | add NAME --elasticsearch URL --index I", "list corpora; pin or unpin the preferred one; rm asks (--yes); add a remote one", corporaCommand},
		{"search", "[--corpus NAME] [-k N] [--retrieval M] [--json] QUERY", "search a corpus, no LLM, no web: by words (BM25), and by meaning when it has vectors", newCmd(parseSearch, runSearch)},
		{"sources", "[--json] | check NAME", "every source in preference order (corpora, MCP servers, the web); check one", sourcesCommand},
		{"sessions", "list|show|export|search|rerun|import ...", "stored sessions", sessionsCommand},
		{"eval", "--data FILE [flags]", "QA evaluation of strategies", newCmd(parseEval, runEval)},
		{"bench", "retrieval|engine|evidence [flags]", "retrieval, engine and evidence benchmarks", benchCommand},
		{"config", "[ask flags]", "print the config file path and every effective setting with its origin", newCmd(parseConfig, runConfig)},
		{"mcp", "[--http ADDR] [--token T] [ask flags]", "serve MCP to agents (Claude Desktop, VS Code, Cursor, crush): search, fetch, ask, sessions", newCmd(parseMCP, runMCP)},
	}
}

// Main runs prefrag with args and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := config.Load(nil)
	if err != nil {
		fmt.Fprintln(stderr, "prefrag:", oneLine(err))
		return ExitUsage
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "prefrag: warning:", textsafe.OneLine(w))
	}
	routeLibraryLog(cfg.LogPath())
	return dispatch(&env{stdin: stdin, stdout: stdout, stderr: stderr, cfg: cfg, ctx: ctx, getenv: os.Getenv}, args)
}

// dispatch runs one command line with e and returns its exit status
// (CONTRACT.md): Main without the process — the signals, the loading of the
// configuration and the library log.
func dispatch(e *env, args []string) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) > 0 {
		switch args[0] {
		case "-h", "--help", "-help":
			printUsage(stdout)
			return ExitOK
		case "help":
			return runHelp(e, args[1:])
		case "completion":
			return exitCode(stderr, newCmd(parseCompletion, runCompletion)(e, args[1:]))
		case "version", "--version":
			fmt.Fprintln(stdout, versionString())
			return ExitOK
		}
		for _, c := range commands() {
			if c.name == args[0] {
				return exitCode(stderr, c.run(e, args[1:]))
			}
		}
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintln(stderr, "prefrag:", unknownCommand(args[0]))
			return ExitUsage
		}
	}
	return exitCode(stderr, newCmd(parseTUI, runTUI)(e, args))
}

// unknownCommand is the sentence for a command prefrag does not have, with
// a "did you mean" when one is close.
func unknownCommand(name string) string {
	names := []string{"help", "completion", "version"}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if near := suggest.Closest(name, names); near != "" {
		return fmt.Sprintf("unknown command %q — did you mean %s?", name, near)
	}
	return fmt.Sprintf("unknown command %q — run `prefrag help` for the list", name)
}

// Version is set at build time with -ldflags "-X …cli.Version=…".
var Version = "dev"

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "prefrag — a terminal research assistant: local corpus first, the web only when needed.")
	fmt.Fprintln(w, "\nUsage:")
	writeColumns(w, usageRows(), usageColumn)
	fmt.Fprintln(w, "\nRun `prefrag help COMMAND` for a command's flags and examples; `prefrag help ask` lists the flags shared by ask, the TUI and eval.")
	fmt.Fprintln(w, "The manual: README.md and docs/ in prefrag's source tree (docs/web-and-privacy.md: what may leave the machine).")
}

// usageColumn is the widest left cell that still sets the description
// column; a longer one puts its description on the next line.
const usageColumn = 44

// usageRows are the lines of `prefrag help`: every command and every
// subcommand, with what it does.
func usageRows() [][2]string {
	rows := [][2]string{{"prefrag [ask flags]", "the interactive workspace (TUI)"}}
	for _, c := range commands() {
		switch c.name {
		case "corpora":
			for _, s := range corporaSubcommands {
				rows = append(rows, [2]string{"prefrag corpora " + s[0], s[1]})
			}
		case "sessions":
			for _, s := range sessionSubcommands {
				rows = append(rows, [2]string{"prefrag sessions " + s.args, s.help})
			}
		case "sources":
			for _, s := range sourcesSubcommands {
				rows = append(rows, [2]string{"prefrag sources " + s[0], s[1]})
			}
		case "bench":
			for _, s := range benchSubcommands {
				rows = append(rows, [2]string{"prefrag bench " + s[0], s[1]})
			}
		default:
			rows = append(rows, [2]string{"prefrag " + c.name + " " + c.args, c.help})
		}
	}
	return append(rows,
		[2]string{"prefrag help [COMMAND]", "help for one command (or COMMAND --help)"},
		[2]string{"prefrag completion bash|zsh|fish", "print a shell completion script (source <(prefrag completion bash))"},
		[2]string{"prefrag version", "the version, commit and build date (or --version)"})
}

// corporaSubcommands and benchSubcommands are the forms of `corpora` and
// `bench` as `prefrag help` lists them.
var corporaSubcommands = [][2]string{
	{"[--json]", "list corpora: name, documents, passages, size, pinned"},
	{"pin NAME", "make NAME the preferred corpus, searched first"},
	{"unpin", "leave no corpus pinned"},
	{"rm NAME [--yes]", "delete a corpus (asks, or --yes)"},
	{"add NAME --elasticsearch URL --index I", "add a remote corpus (Elasticsearch/OpenSearch or Manticore)"},
}

var benchSubcommands = [][2]string{
	{"retrieval [flags]", "retrieval quality and speed on the shared IR collections"},
	{"engine [flags]", "engine overhead per LLM call and prompt reuse"},
	{"evidence --file F [flags]", "supporting-sentence precision/recall/F1 of the evidence aligner (HotpotQA, 2WikiMultiHopQA)"},
}

// writeColumns prints rows in two aligned columns, indented by two spaces;
// a left cell longer than max puts its description on the next line, in
// the same column.
func writeColumns(w io.Writer, rows [][2]string, max int) {
	col := 0
	for _, r := range rows {
		if n := utf8.RuneCountInString(r[0]); n <= max && n > col {
			col = n
		}
	}
	for _, r := range rows {
		n := utf8.RuneCountInString(r[0])
		if n > col {
			fmt.Fprintf(w, "  %s\n  %s  %s\n", r[0], strings.Repeat(" ", col), r[1])
			continue
		}
		fmt.Fprintf(w, "  %s%s  %s\n", r[0], strings.Repeat(" ", col-n), r[1])
	}
}

func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return ExitOK
	}
	var ue *usageError
	if errors.As(err, &ue) || errors.Is(err, engine.ErrInvalidSettings) || errors.Is(err, config.ErrConfig) {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "prefrag:", oneLine(err))
		}
		return ExitUsage
	}
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if errors.Is(err, errAlreadyReported) {
		return ExitFailure
	}
	var full *store.FullError
	if errors.As(err, &full) {
		// The disk's sentence, not the operation that met it.
		err = full
	}
	fmt.Fprintln(stderr, "prefrag:", oneLine(err))
	return ExitFailure
}

// errAlreadyReported ends a command whose failure was already printed.
var errAlreadyReported = errors.New("reported")

func oneLine(err error) string {
	s := textsafe.ForTerminal(err.Error())
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimPrefix(s, engine.ErrInvalidSettings.Error()+": ")
	s = strings.TrimPrefix(s, config.ErrConfig.Error()+": ")
	return s
}

// parseFlags parses flags that may appear before or after positional
// arguments ("sessions show ID --json" works) and returns the positionals.
// "--" ends flag parsing.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError(fs, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError words a flag the command does not have with a "did you mean"
// when one of its flags is close, and any other parse error as the flag
// package does.
func flagError(fs *flag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return usagef("%s: %v", fs.Name(), err)
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := suggest.Closest(name, names); near != "" {
		return usagef("%s: unknown flag %s — did you mean %s?", fs.Name(), dashed(name), dashed(near))
	}
	help := "prefrag help " + fs.Name()
	if fs.Name() == "prefrag" {
		help = "prefrag help ask" // the workspace takes ask's flags
	}
	return usagef("%s: unknown flag %s; `%s` lists its flags", fs.Name(), dashed(name), help)
}

func openApp(e *env) (*app.App, error) {
	return app.Open(e.ctx, e.cfg)
}
