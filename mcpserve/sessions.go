package mcpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/store"
	"github.com/prefrag/prefrag/store/export"
)

// SessionsInput is the sessions tool's argument.
type SessionsInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"at most this many sessions, newest first (default 20, at most 200)"`
}

// SessionsOutput lists stored sessions.
type SessionsOutput struct {
	Sessions []SessionInfo `json:"sessions"`
}

// SessionInfo is one stored session.
type SessionInfo struct {
	ID       string     `json:"id"`
	Question string     `json:"question" jsonschema:"the first question of its thread"`
	Answer   string     `json:"answer" jsonschema:"the latest answer"`
	Label    string     `json:"label,omitempty"`
	Status   string     `json:"status" jsonschema:"running, answered, failed, cancelled or interrupted"`
	Turns    int        `json:"turns" jsonschema:"questions in its thread"`
	Started  time.Time  `json:"started"`
	Finished *time.Time `json:"finished,omitempty"`
	Resource string     `json:"resource" jsonschema:"the session as Markdown (resources/read)"`
	Report   string     `json:"report" jsonschema:"the session as a self-contained HTML report (resources/read)"`
}

const (
	defaultSessions = 20
	maxSessions     = 200
)

// The resources: each stored session in Markdown and as the HTML report.
const (
	sessionPrefix = "prefrag://sessions/"
	reportSuffix  = "/report.html"
)

func sessionURI(id string) string { return sessionPrefix + id }
func reportURI(id string) string  { return sessionPrefix + id + reportSuffix }

// sessions is the sessions tool: stored sessions, newest first.
func (s *Server) sessions(ctx context.Context, _ *mcp.CallToolRequest, in SessionsInput) (*mcp.CallToolResult, SessionsOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = defaultSessions
	}
	if limit < 1 || limit > maxSessions {
		return nil, SessionsOutput{}, fmt.Errorf("limit must be between 1 and %d, not %d", maxSessions, limit)
	}
	list, err := s.app.Store.ListSessions(ctx, store.Filter{Limit: limit})
	if err != nil {
		return nil, SessionsOutput{}, err
	}
	out := SessionsOutput{Sessions: make([]SessionInfo, 0, len(list))}
	for _, ss := range list {
		out.Sessions = append(out.Sessions, SessionInfo{ID: ss.ID, Question: ss.Question, Answer: ss.Answer, Label: ss.Label,
			Status: ss.Status, Turns: ss.Turns, Started: ss.Started, Finished: ss.Finished,
			Resource: sessionURI(ss.ID), Report: reportURI(ss.ID)})
	}
	return nil, out, nil
}

// readSession serves both session resources: Markdown, or the HTML
// report when the URI ends in /report.html.
func (s *Server) readSession(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, sessionPrefix)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id, html := strings.CutSuffix(id, reportSuffix)
	if id == "" || strings.Contains(id, "/") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rec, err := s.app.Store.GetSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if rec == nil {
		return nil, err
	}
	var b bytes.Buffer
	mime := "text/markdown"
	if html {
		mime = "text/html"
		err = export.HTML(&b, rec)
	} else {
		err = export.Markdown(&b, rec)
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: b.String()}}}, nil
}
