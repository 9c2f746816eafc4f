package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/engine"
)

// AskInput are the ask tool's arguments.
type AskInput struct {
	Question   string   `json:"question" jsonschema:"the research question, as you would ask an analyst"`
	Corpora    []string `json:"corpora,omitempty" jsonschema:"corpora to search, in preference order (default: the user's configured or pinned corpus)"`
	Web        string   `json:"web,omitempty" jsonschema:"web policy for this question: auto, ask or never; it only applies when stricter than the user's own policy"`
	NeverLeave []string `json:"never_leave,omitempty" jsonschema:"corpora whose passages must not leave the machine, added to the user's own"`
	Continue   string   `json:"continue,omitempty" jsonschema:"ask a follow-up in the thread of this session id (or last, the latest session)"`
}

// ask is the ask tool: the PrefRAG loop through app, as `prefrag ask`
// runs it, stored as a session like any other.
func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in AskInput) (*mcp.CallToolResult, AskOutput, error) {
	ctx, done, err := s.track(ctx)
	if err != nil {
		return nil, AskOutput{}, err
	}
	defer done()
	areq, priv, err := s.askRequest(ctx, in)
	if err != nil {
		return nil, AskOutput{}, err
	}
	prog := newProgress(ctx, req)
	col := newCollector()
	areq.Emit = func(ev engine.Event) {
		col.add(ev)
		prog.event(ev)
	}
	if err := s.asks.acquire(ctx, prog.queued); err != nil {
		return nil, AskOutput{}, errors.New("cancelled while waiting for the question before it; no session was started")
	}
	defer s.asks.release()
	res, err := s.app.Ask(ctx, areq)
	if err != nil {
		return nil, AskOutput{}, askError(err, res.SessionID)
	}
	return nil, col.output(res.Result, res.SessionID, priv, s.webNote(priv)), nil
}

// askRequest builds the run from the user's settings and the arguments,
// which may only tighten privacy (privacy.go).
func (s *Server) askRequest(ctx context.Context, in AskInput) (app.AskRequest, askPrivacy, error) {
	question := strings.TrimSpace(in.Question)
	if question == "" {
		return app.AskRequest{}, askPrivacy{}, errors.New("ask needs a question")
	}
	rc := s.opts.Settings
	rc.Corpora = slices.Clone(rc.Corpora)
	if len(in.Corpora) > 0 {
		rc.Corpora = rc.Corpora[:0]
		for _, n := range in.Corpora {
			name, err := s.knownCorpus(n)
			if err != nil {
				return app.AskRequest{}, askPrivacy{}, fmt.Errorf("corpora: %w", err)
			}
			rc.Corpora = append(rc.Corpora, name)
		}
	}
	areq := app.AskRequest{Question: question}
	if ref := strings.TrimSpace(in.Continue); ref != "" {
		id, err := s.app.ResolveContinue(ctx, ref)
		if err != nil {
			return app.AskRequest{}, askPrivacy{}, err
		}
		areq.Continue = id
		if len(in.Corpora) == 0 {
			// A follow-up searches its thread's corpora, as with ask --continue.
			if corpora, err := s.app.ThreadCorpora(ctx, id); err == nil && len(corpora) > 0 {
				rc.Corpora = corpora
			}
		}
	}
	priv, err := s.applyPrivacy(&rc, in.Web, in.NeverLeave)
	if err != nil {
		return app.AskRequest{}, askPrivacy{}, err
	}
	// No Consent: nobody can be asked, so "ask" acts as "never"; no
	// Explicit: a follow-up keeps the strictest privacy of its thread.
	areq.Settings = rc
	return areq, priv, nil
}

// askError is the one-line reason of a run that gave no answer.
func askError(err error, session string) error {
	saved := ""
	if session != "" {
		saved = "; the partial session is saved as " + session
	}
	var de *app.DeadlineError
	var fe *engine.FatalError
	switch {
	case errors.As(err, &de):
		return errors.New(oneLine(de))
	case errors.Is(err, engine.ErrCancelled):
		return errors.New("cancelled" + saved)
	case errors.As(err, &fe):
		if session != "" {
			saved = "; the failed session is saved as " + session
		}
		return errors.New(oneLine(fe.Err) + saved)
	}
	return errors.New(oneLine(err))
}

// oneLine is an error's text on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
