package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
)

// MaxResultChars bounds the text prefrag keeps from one search (all its
// passages together); the rest is cut and the search marked partial.
const MaxResultChars = 256 << 10

// Source is a declared MCP server as a prefrag source. It connects at its
// first search and keeps the connection for the run (Close ends it); a
// server that cannot start, or did not answer in time, is not tried again
// in the run, and one that exited is started again at the next search.
type Source struct {
	srv Server
	log *slog.Logger

	mu     sync.Mutex
	conn   *conn
	choice toolChoice
	down   error // why the server is not tried again in this run
	starts int   // connections made (tests count them)
}

// New is the source for srv; nothing is started until it is searched.
func New(srv Server, log *slog.Logger) *Source { return &Source{srv: srv, log: log} }

// Name is "mcp:<server>".
func (s *Source) Name() string { return s.srv.SourceName() }

// Kind is sources.KindMCP for a stdio server (or one declared local),
// sources.KindMCPRemote for an http or sse one.
func (s *Source) Kind() sources.Kind { return s.srv.Kind() }

// Server is the declaration.
func (s *Source) Server() Server { return s.srv }

// Search calls the server's search tool with query and returns up to k
// passages. Trouble is an error matching sources.ErrUnavailable (the
// server could not be used) or, for a cut answer, sources.ErrTruncated
// with the passages kept.
func (s *Source) Search(ctx context.Context, query string, k int) ([]sources.Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.connected(ctx)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithTimeout(ctx, s.srv.Timeout)
	defer cancel()
	res, err := c.session.CallTool(callCtx, &mcp.CallToolParams{Name: s.choice.Search, Arguments: map[string]any{s.choice.QueryArg: query}})
	if err != nil {
		return nil, s.callFailed(ctx, callCtx, err)
	}
	if res.IsError {
		return nil, s.unavailable(fmt.Errorf("its tool %s answered with an error: %s", s.choice.Search, errorText(res)))
	}
	hs := outputOf(res).hits()
	if len(hs) > k && k > 0 {
		hs = hs[:k]
	}
	hs = s.fetchBare(callCtx, c, hs)
	return s.documents(hs)
}

// connected is the live connection, made (or made again) when needed.
func (s *Source) connected(ctx context.Context) (*conn, error) {
	if s.down != nil {
		return nil, s.down
	}
	if s.conn != nil && s.conn.alive() {
		return s.conn, nil
	}
	if s.conn != nil {
		s.conn.close()
		s.conn = nil
	}
	dialCtx, cancel := context.WithTimeout(ctx, s.srv.Timeout)
	defer cancel()
	s.starts++
	c, err := dial(dialCtx, s.srv, s.log)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.down = s.unavailable(err)
		return nil, s.down
	}
	choice, err := chooseTool(c.tools, s.srv.Tool, s.srv.QueryArg)
	if err != nil {
		c.close()
		s.down = s.unavailable(err)
		return nil, s.down
	}
	s.conn, s.choice = c, choice
	return c, nil
}

// callFailed words a failed call and drops the connection: a timeout
// leaves the server down for the run; a server that exited is started
// again at the next search.
func (s *Source) callFailed(ctx, callCtx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c := s.conn
	s.conn = nil
	werr := c.failure(callCtx, s.srv, "failed the call", err)
	c.close()
	var te *timeoutError
	if errors.As(werr, &te) {
		s.down = s.unavailable(werr)
		return s.down
	}
	return s.unavailable(werr)
}

// unavailable wraps a reason as the source's UnavailableError, with no
// secret of the declaration in it.
func (s *Source) unavailable(err error) error {
	msg := err.Error()
	for _, sec := range s.srv.Secrets() {
		msg = strings.ReplaceAll(msg, sec, "…")
	}
	return &sources.UnavailableError{Source: s.Name(), Err: errors.New(textsafe.OneLine(msg))}
}

// fetchBare fetches the text of results that came without one, when the
// server has a fetch tool (the search/fetch convention). A fetch that
// fails leaves the result as it was.
func (s *Source) fetchBare(ctx context.Context, c *conn, hs []hit) []hit {
	if s.choice.Fetch == "" {
		return hs
	}
	for i, h := range hs {
		key := h.ID
		if key == "" {
			key = h.URL
		}
		if !h.Bare || key == "" {
			continue
		}
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: s.choice.Fetch, Arguments: map[string]any{s.choice.FetchArg: key}})
		if err != nil || res.IsError {
			continue
		}
		if got := outputOf(res).hits(); len(got) > 0 && got[0].Text != "" {
			hs[i].Text, hs[i].Bare = got[0].Text, false
			if hs[i].Title == "" {
				hs[i].Title = got[0].Title
			}
			if hs[i].URL == "" {
				hs[i].URL = got[0].URL
			}
		}
	}
	return hs
}

// documents turns results into passages: untrusted text made safe, at most
// MaxResultChars of it kept (a cut search returns a TruncatedError with
// the passages kept).
func (s *Source) documents(hs []hit) ([]sources.Document, error) {
	var docs []sources.Document
	left := MaxResultChars
	cut := false
	for i, h := range hs {
		text := textsafe.ForTerminal(strings.TrimSpace(h.Text))
		if len(text) > left {
			text, cut = cutBytes(text, left), true
		}
		if text == "" && h.Title == "" {
			continue
		}
		left -= len(text)
		docs = append(docs, s.document(i, h, text))
		if left <= 0 {
			cut = cut || i+1 < len(hs)
			break
		}
	}
	if cut {
		return docs, &sources.TruncatedError{Engine: s.Name(), Limit: MaxResultChars, Results: len(docs), Of: "text"}
	}
	return docs, nil
}

// document is one passage: its id is the result's id (or address, or
// title) under the server's name, its score its rank.
func (s *Source) document(i int, h hit, text string) sources.Document {
	title := textsafe.OneLine(h.Title)
	if title == "" {
		title = textsafe.OneLine(firstLine(text))
	}
	id := h.ID
	if id == "" {
		id = h.URL
	}
	if id == "" {
		id = h.Title
	}
	if id == "" {
		id = fmt.Sprintf("result %d", i+1)
	}
	if h.URL == "" || id != h.URL {
		id = s.srv.Name + "/" + id
	}
	return sources.Document{
		ID: textsafe.OneLine(id), Title: title, Text: text, URL: textsafe.OneLine(h.URL),
		Source: s.Name(), Score: 1 / float64(i+1), Locator: textsafe.OneLine(h.URL),
	}
}

// cutBytes cuts s to at most n bytes on a rune boundary, ending in "…".
func cutBytes(s string, n int) string {
	n -= len("…")
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	if n <= 0 {
		return ""
	}
	return s[:n] + "…"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	if r := []rune(l); len(r) > 80 {
		l = string(r[:80]) + "…"
	}
	return l
}

// errorText is the text of an error result, on one line and short.
func errorText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	msg := textsafe.OneLine(strings.Join(parts, " "))
	if msg == "" {
		return "(no message)"
	}
	return textsafe.ElideMiddle(msg, 300)
}

// Close ends the connection (and a stdio server's process).
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.close()
		s.conn = nil
	}
	return nil
}
