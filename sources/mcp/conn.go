package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessage bounds one message from a server (the SDK's frame and event
// limits, and an HTTP body): a larger answer fails the call.
const MaxMessage = 8 << 20

// stopGrace is how long a stdio server has to exit after its stdin closes,
// and again after SIGTERM.
var stopGrace = 2 * time.Second

// conn is one live session with a server.
type conn struct {
	session *mcp.ClientSession
	// cancel ends what the session runs on (an SSE stream lives as long
	// as the context it was opened with).
	cancel context.CancelFunc
	proc   *process // stdio servers only
	tools  []*mcp.Tool
	info   string // the server's name and version, as it says
}

// clientInfo is how prefrag introduces itself to a server.
var clientInfo = &mcp.Implementation{Name: "prefrag", Title: "prefrag research assistant", Version: "1"}

// dial connects to srv and lists its tools, within ctx.
func dial(ctx context.Context, srv Server, log *slog.Logger) (*conn, error) {
	client := mcp.NewClient(clientInfo, &mcp.ClientOptions{Logger: quiet(log)})
	c := &conn{}
	var t mcp.Transport
	switch srv.Transport {
	case TransportStdio:
		p, out, in, err := startProcess(srv)
		if err != nil {
			return nil, err
		}
		c.proc = p
		t = &mcp.IOTransport{Reader: out, Writer: in, MaxLineLength: MaxMessage}
	case TransportSSE:
		t = &mcp.SSEClientTransport{Endpoint: srv.URL, HTTPClient: httpClient(srv), MaxEventSize: MaxMessage}
	default:
		t = &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: httpClient(srv), MaxRetries: -1,
			DisableStandaloneSSE: true, MaxEventSize: MaxMessage}
	}
	s, err := c.connect(ctx, client, t)
	if err != nil {
		c.close()
		return nil, c.failure(ctx, srv, "did not complete the MCP handshake", err)
	}
	c.session = s
	if r := s.InitializeResult(); r != nil && r.ServerInfo != nil {
		c.info = strings.TrimSpace(r.ServerInfo.Name + " " + r.ServerInfo.Version)
	}
	if err := c.listTools(ctx); err != nil {
		c.close()
		return nil, c.failure(ctx, srv, "did not list its tools", err)
	}
	return c, nil
}

// connect runs the handshake within ctx, on a context of the session's
// own that outlives it (an SSE stream is read as long as the session
// lasts); a handshake past ctx's deadline is abandoned.
func (c *conn) connect(ctx context.Context, client *mcp.Client, t mcp.Transport) (*mcp.ClientSession, error) {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	type result struct {
		s   *mcp.ClientSession
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := client.Connect(sctx, t, nil)
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-ctx.Done():
		cancel()
		if c.proc != nil {
			signalGroup(c.proc.cmd, true)
		}
		if r := <-done; r.s != nil {
			r.s.Close()
		}
		return nil, ctx.Err()
	}
}

// listTools reads every page of the server's tools (at most 20 pages).
func (c *conn) listTools(ctx context.Context) error {
	params := &mcp.ListToolsParams{}
	for range 20 {
		res, err := c.session.ListTools(ctx, params)
		if err != nil {
			return err
		}
		c.tools = append(c.tools, res.Tools...)
		if res.NextCursor == "" {
			return nil
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
	return nil
}

// failure words a failed exchange: a process that exited says so (with its
// last line of stderr), a deadline says how long was waited.
func (c *conn) failure(ctx context.Context, srv Server, what string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &timeoutError{after: srv.Timeout}
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("the server wrote what is not JSON-RPC on its output (%v): a stdio server must log to stderr only", syn)
	}
	if c.proc != nil {
		// A server that died answers every read with EOF at once; give its
		// exit a moment to be seen.
		c.proc.waitExit(200 * time.Millisecond)
		if gone, how := c.proc.exited(); gone {
			return errors.New("the server " + how)
		}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil && srv.URL != "" {
		return fmt.Errorf("cannot reach %s (%v): check that the server runs and its url", hostOf(srv.URL), op.Err)
	}
	return fmt.Errorf("the server %s: %v", what, err)
}

// hostOf is a URL's host and port, as a message names the server.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

// alive reports whether a stdio server's process still runs (http: true).
func (c *conn) alive() bool {
	if c.proc == nil {
		return true
	}
	gone, _ := c.proc.exited()
	return !gone
}

// close ends the session and, for stdio, the process (reaped).
func (c *conn) close() {
	if c.session != nil {
		c.session.Close()
	}
	if c.cancel != nil {
		c.cancel()
	}
	if c.proc != nil {
		c.proc.stop(stopGrace)
	}
}

// timeoutError is a call the server did not answer in time.
type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("the server did not answer within %s (its timeout)", e.after)
}

// httpClient sends the declared headers with every request and bounds a
// JSON answer's size.
func httpClient(srv Server) *http.Client {
	return &http.Client{Transport: &headerTransport{headers: srv.Headers, base: http.DefaultTransport}}
}

type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &limitedBody{rc: resp.Body, left: MaxMessage}
	}
	return resp, nil
}

// limitedBody fails a read past its limit instead of buffering it all.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the answer is larger than %d MiB", MaxMessage>>20)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// quiet is the SDK's logger: prefrag's log at warnings and above, or
// nothing.
func quiet(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}
