// Package mcpserve serves prefrag over the Model Context Protocol, so that
// the agents an analyst already uses (Claude Desktop, VS Code, Cursor,
// crush, …) can search the curated corpus and ask prefrag for a cited,
// judged answer. It is a front end beside the command line: it builds on
// app exactly as `prefrag search` and `prefrag ask` do, and speaks MCP
// through the official Go SDK (stdio, or streamable HTTP in http.go).
//
// The tools: search and fetch (no model; the search/fetch shape ChatGPT's
// connectors expect), ask (the PrefRAG loop, stored as a session like any
// other) and sessions; each stored session is also a resource in Markdown
// and as the HTML report. An agent's arguments can make the user's privacy
// stricter, never looser (privacy.go).
package mcpserve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/engine"
)

// Options are what a server needs besides the app.
type Options struct {
	// Settings are the user's run settings (config file, environment and
	// the flags `prefrag mcp` was started with): every ask starts from
	// them, and a tool argument only tightens their privacy.
	Settings engine.RunConfig
	// Version is prefrag's version, sent in the initialize reply.
	Version string
	// WebAllowHint says how the user allows the web when the policy is
	// "ask" (config.Config.WebAllowHint); an agent cannot be asked.
	WebAllowHint string
}

// Server is prefrag's MCP server: one per process, shared by every client
// session (one over stdio, any number over HTTP).
type Server struct {
	app  *app.App
	opts Options
	log  *slog.Logger
	mcp  *mcp.Server // the SDK server (tests connect clients to it in memory)

	corpora *corpusCache
	// asks lets one ask run at a time: one run keeps the LLM server's
	// reasoning slot and judge slot busy, so a second waits its turn
	// (queued, with a progress message) instead of failing or slowing
	// the first (slots.go).
	asks *askQueue

	// base is cancelled when the server stops: runs still going end as
	// cancelled sessions. running counts the tool calls in flight.
	base    context.Context
	stop    context.CancelFunc
	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup
}

// New builds the server on an opened app. Close releases what it opened
// (not the app).
func New(a *app.App, opts Options) *Server {
	base, stop := context.WithCancel(context.Background())
	s := &Server{app: a, opts: opts, log: a.Log, corpora: newCorpusCache(a), asks: newAskQueue(1), base: base, stop: stop}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "prefrag", Title: "prefrag — your corpus first, the web only when needed", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: a.Log})
	s.addTools()
	s.addResources()
	return s
}

// instructions is what a client may show its model about this server.
const instructions = `prefrag answers research questions from the user's own curated corpus first and goes to the web only when its judge finds the corpus insufficient (and the user's web policy allows it).
- search: passages of the user's corpus for a query (fast, no model); fetch: one passage whole.
- ask: a cited, judged answer (may take minutes: it reasons in steps with a local model); every claim comes with the sentences that support it. The session it returns is stored; read it as prefrag://sessions/{id}.
- sessions: the stored sessions, newest first.
Privacy: arguments can only make the user's settings stricter (web policy, never-leave corpora).`

// ServeStdio serves one client over r and w (the process's stdin and
// stdout: nothing else may write to w) until the client closes r or ctx
// ends.
func (s *Server) ServeStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
	if ctx.Err() != nil {
		return nil // stopped by a signal: not a failure
	}
	return err
}

// Close stops the runs still going (each is kept as a cancelled session),
// waits for the tool calls in flight and releases the corpora.
func (s *Server) Close() error {
	s.shutdown()
	s.corpora.close()
	return nil
}

// shutdown refuses new tool calls, cancels the runs going and waits for
// the calls in flight to return.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	s.running.Wait()
}

// errStopping answers a tool call that arrives while the server stops.
var errStopping = errors.New("prefrag is shutting down; call again once it is restarted")

// track counts a tool call in flight; the returned context also ends when
// the server stops. Call done when the call returns.
func (s *Server) track(ctx context.Context) (_ context.Context, done func(), _ error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errStopping
	}
	s.running.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(s.base, cancel)
	return ctx, func() {
		unhook()
		cancel()
		s.running.Done()
	}, nil
}
