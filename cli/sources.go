package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// sourcesSubcommands are the forms of `sources` as `prefrag help` lists
// them.
var sourcesSubcommands = [][2]string{
	{"[--json] [--no-connect]", "every source in preference order: kind, whether a query leaves the machine, state, an MCP server's search tool"},
	{"check NAME [--query Q]", "connect to one source, list an MCP server's tools, run one search, say what came back"},
}

// sourcesCommand is `prefrag sources`: it lists the sources a question
// would search (the run flags change which and in what order), or checks
// one.
func sourcesCommand(e *env, args []string) error {
	if len(args) > 0 && args[0] == "check" {
		return newCmd(parseSourcesCheck, runSourcesCheck)(e, args[1:])
	}
	return newCmd(parseSources, runSources)(e, args)
}

// sourcesOptions are `prefrag sources`'s: the run settings are applied to
// the configuration.
type sourcesOptions struct {
	Out       outputFlags
	NoConnect bool // do not connect to the MCP servers
	Names     bool // only the names, for shell completion
}

func parseSources(e *env, args []string) (*sourcesOptions, error) {
	fs := flag.NewFlagSet("sources", flag.ContinueOnError)
	o := &sourcesOptions{}
	rf, out := bindRunFlags(fs, e.cfg)
	fs.Lookup("json").Usage = "one JSON object per source"
	fs.Lookup("tokens").Usage = "does nothing here"
	fs.BoolVar(&o.NoConnect, "no-connect", false, "do not connect to the MCP servers (their state and search tool are then unknown)")
	fs.BoolVar(&o.Names, "names", false, "only the source names, one a line (for shell completion; connects to nothing)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, "sources [--json] [--no-connect] [ask flags] | sources check NAME [--query Q]")
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usagef("unknown sources command %q (check)", pos[0])
	}
	o.Out = *out
	return o, rf.Apply()
}

func runSources(e *env, o *sourcesOptions) error {
	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	rows, err := a.ListSources(e.ctx, e.cfg.Settings, !o.NoConnect && !o.Names)
	if err != nil {
		return err
	}
	switch {
	case o.Names:
		for _, r := range rows {
			fmt.Fprintln(e.stdout, r.Name)
		}
	case o.Out.JSON:
		enc := json.NewEncoder(e.stdout)
		for _, r := range rows {
			enc.Encode(r)
		}
	default:
		printSourceRows(e, rows)
	}
	return nil
}

// printSourceRows is the table of `prefrag sources`, then where each MCP
// server is (its command or address, no secret).
func printSourceRows(e *env, rows []app.SourceRow) {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tLEAVES\tSTATE\tSEARCH TOOL")
	var where []string
	for _, r := range rows {
		tool := r.Tool
		if tool == "" {
			tool = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", line(r.Name), r.Kind, yesNo(r.Leaves), line(r.State), line(tool))
		if r.Where != "" {
			where = append(where, fmt.Sprintf("  %s: %s %s", line(r.Name), r.Transport, line(r.Where)))
		}
	}
	tw.Flush()
	if len(where) > 0 {
		file, _ := e.cfg.MCPConfigPath()
		fmt.Fprintf(e.stdout, "\nMCP servers (declared in %s; `prefrag sources check NAME` connects and runs one search):\n", line(file))
		fmt.Fprintln(e.stdout, strings.Join(where, "\n"))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// sourcesCheckOptions are `prefrag sources check`'s: the run settings
// are applied to the configuration.
type sourcesCheckOptions struct {
	Name  string // a corpus, mcp:NAME or web
	Query string
}

func parseSourcesCheck(e *env, args []string) (*sourcesCheckOptions, error) {
	fs := flag.NewFlagSet("sources check", flag.ContinueOnError)
	o := &sourcesCheckOptions{}
	rf, _ := bindRunFlags(fs, e.cfg)
	fs.StringVar(&o.Query, "query", "test", "the `QUERY` to search for")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, "sources check NAME [--query Q] [ask flags]")
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, usagef("usage: prefrag sources check NAME (a corpus, mcp:NAME or web; `prefrag sources` lists them)")
	}
	o.Name = pos[0]
	return o, rf.Apply()
}

// runSourcesCheck connects to one source and runs one search; exit 1 when
// it fails.
func runSourcesCheck(e *env, o *sourcesCheckOptions) error {
	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	rep, err := a.CheckSource(e.ctx, e.cfg.Settings, o.Name, o.Query)
	if errors.Is(err, app.ErrNoSource) {
		return usagef("%s", strings.TrimPrefix(err.Error(), app.ErrNoSource.Error()+": "))
	}
	if rep.Row.Name == "" {
		return err
	}
	printCheck(e, rep, err)
	if err != nil {
		return fmt.Errorf("%s failed: %s", line(rep.Row.Name), line(checkReason(err)))
	}
	return nil
}

// printCheck says what a check found, step by step.
func printCheck(e *env, rep app.CheckReport, err error) {
	r := rep.Row
	fmt.Fprintf(e.stdout, "%s: %s source; a query to it %s the machine\n", line(r.Name), r.Kind, map[bool]string{true: "leaves", false: "does not leave"}[r.Leaves])
	if r.Where != "" {
		fmt.Fprintf(e.stdout, "  %s: %s\n", r.Transport, line(r.Where))
	}
	if p := rep.Probe; p != nil {
		if p.Server != "" {
			fmt.Fprintf(e.stdout, "  connected: %s\n", line(p.Server))
		}
		fmt.Fprintf(e.stdout, "  tools (%d): %s\n", len(p.Tools), line(strings.Join(p.Tools, ", ")))
		fmt.Fprintf(e.stdout, "  search tool: %s (the query goes in %q)", line(p.Search), p.QueryArg)
		if p.Fetch != "" {
			fmt.Fprintf(e.stdout, "; fetch tool: %s", line(p.Fetch))
		}
		fmt.Fprintln(e.stdout)
	}
	if err != nil {
		return
	}
	fmt.Fprintf(e.stdout, "  search %q: %s in %d ms\n", line(rep.Query), plural.N(len(rep.Docs), "passage"), rep.Took.Milliseconds())
	for i, d := range rep.Docs {
		fmt.Fprintf(e.stdout, "    %d. %s — %s\n", i+1, line(titleOr(d.Title, d.ID)), line(textsafe.ElideMiddle(textsafe.OneLine(d.Text), 100)))
	}
	if rep.Partial != "" {
		fmt.Fprintf(e.stdout, "  partial: %s\n", line(rep.Partial))
	}
}

func titleOr(title, id string) string {
	if title != "" {
		return title
	}
	return id
}

// checkReason is a source's failure without its name before it.
func checkReason(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, " unavailable: "); i >= 0 {
		return msg[i+len(" unavailable: "):]
	}
	return msg
}
