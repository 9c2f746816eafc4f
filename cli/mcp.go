package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/prefrag/prefrag/mcpserve"
)

// mcpOptions are `prefrag mcp`'s: the run settings are applied to the
// configuration.
type mcpOptions struct {
	Addr  string // --http: serve streamable HTTP there; "": stdio
	Token string // the bearer token; default: mcp_token from the config file or PREFRAG_MCP_TOKEN
}

func parseMCP(e *env, args []string) (*mcpOptions, error) {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	o := &mcpOptions{}
	rf, _ := bindRunFlags(fs, e.cfg)
	markOutputFlags(fs, "mcp")
	fs.StringVar(&o.Addr, "http", "", "serve streamable HTTP at http://`ADDR`/mcp (HOST:PORT) instead of stdio; an address beyond loopback needs a token")
	fs.StringVar(&o.Token, "token", "", "the bearer `TOKEN` every HTTP request must carry (Authorization: Bearer …); default: mcp_token in the config file or PREFRAG_MCP_TOKEN")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, "mcp [--http ADDR] [--token T] [ask flags]")
		fmt.Fprint(e.stdout, mcpClientHelp)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usagef("mcp takes no arguments (got %q): the client sends the questions", pos[0])
	}
	if err := rf.Apply(); err != nil {
		return nil, err
	}
	if err := refuseOutputFlags(rf, "`prefrag mcp`", "answers in the protocol"); err != nil {
		return nil, err
	}
	if err := resolveNeverLeave(e); err != nil {
		return nil, err
	}
	if o.Token == "" {
		o.Token = e.cfg.MCPToken
	}
	if o.Addr != "" {
		if err := mcpserve.CheckListen(o.Addr, o.Token); err != nil {
			return nil, &usageError{msg: err.Error()}
		}
		if err := mcpserve.CheckExposure(o.Addr, e.cfg.Settings.NeverLeave); err != nil {
			return nil, &usageError{msg: err.Error()}
		}
	}
	return o, nil
}

// runMCP is `prefrag mcp`: serve MCP over stdio (the client starts
// prefrag as a command), or over streamable HTTP with --http. On stdio,
// stdout carries the protocol only: everything else goes to the log file
// or, before the server starts, to stderr.
func runMCP(e *env, o *mcpOptions) error {
	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	s := e.cfg.Settings
	s.WebChosen = e.cfg.WebChosen()
	srv := mcpserve.New(a, mcpserve.Options{Settings: s, Version: versionString(), WebAllowHint: e.cfg.WebAllowHint()})
	defer srv.Close()
	if o.Addr == "" {
		return srv.ServeStdio(e.ctx, readCloser(e.stdin), nopWriteCloser{e.stdout})
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", o.Addr, err)
	}
	fmt.Fprintf(e.stderr, "prefrag mcp: serving MCP at http://%s%s (Ctrl-C stops)\n", ln.Addr(), mcpserve.Path)
	return srv.ServeHTTP(e.ctx, ln, o.Token)
}

// readCloser is r with a Close that ends a blocked read when r is a file
// (the process's stdin), so that a signal stops the server.
func readCloser(r io.Reader) io.ReadCloser {
	if f, ok := r.(*os.File); ok {
		return f
	}
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpClientHelp ends `prefrag mcp --help`: what the tools are and the
// configuration snippets of the clients people use (docs/mcp-server.md
// has the same, with the HTTP variants).
const mcpClientHelp = `
Tools: search (the corpus's passages, no model), fetch (one passage whole),
ask (a cited, judged answer, stored as a session; one progress notification
per step), sessions (stored sessions). Resources: prefrag://sessions/{id}
(Markdown) and prefrag://sessions/{id}/report.html. A tool argument can make
your privacy settings stricter (web, never_leave), never looser; with web
policy ask nobody can be asked, so no web query is sent.

Client configuration (stdio; add ask flags to "args", e.g. "--model", "qwen3:8b"):
  Claude Desktop (claude_desktop_config.json), Cursor (~/.cursor/mcp.json):
    {"mcpServers": {"prefrag": {"command": "prefrag", "args": ["mcp"]}}}
  VS Code (.vscode/mcp.json):
    {"servers": {"prefrag": {"type": "stdio", "command": "prefrag", "args": ["mcp"]}}}
  crush (crush.json; an answer may take minutes, hence the timeout):
    {"mcp": {"prefrag": {"type": "stdio", "command": "prefrag", "args": ["mcp"], "timeout": 600}}}
Over HTTP (prefrag mcp --http 127.0.0.1:8765):
    {"servers": {"prefrag": {"type": "http", "url": "http://127.0.0.1:8765/mcp"}}}
  with a token, each request sends the header Authorization: Bearer TOKEN.
`
