package mcpserve

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/plural"
)

// progress sends a progress notification for each step of a run (its
// thought, search, judge verdict, switch, answer …) when the client gave
// a progress token, so that clients which reset their timeout on progress
// do not give up on a question that takes minutes. Without a token it
// sends nothing.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any

	mu sync.Mutex
	n  float64
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	p := &progress{ctx: ctx}
	if req != nil && req.Params != nil {
		p.session, p.token = req.Session, req.Params.GetProgressToken()
	}
	return p
}

// send notifies one message; a client gone or a cancelled call only loses
// the notification.
func (p *progress) send(msg string) {
	if p.token == nil || p.session == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: msg})
}

// queued says the question waits for the ones before it.
func (p *progress) queued(ahead int) {
	p.send(fmt.Sprintf("waiting: %s before this one on the LLM server; it starts when %s done",
		plural.N(ahead, "question"), plural.Noun(ahead, "that one is", "they are")))
}

// event notifies one event of the run (token deltas are not steps).
func (p *progress) event(ev engine.Event) {
	if msg := progressMessage(ev); msg != "" {
		p.send(msg)
	}
}

// progressMessage is an event in one short line, "" for none.
func progressMessage(ev engine.Event) string {
	step := ""
	if ev.Step > 0 {
		step = fmt.Sprintf("step %d · ", ev.Step)
	}
	switch p := ev.Payload.(type) {
	case engine.SessionStart:
		return "session " + ev.Session + " started"
	case engine.Rewrite:
		return "follow-up in session " + ev.Session + ", rewritten as: " + short(p.Rewritten)
	case engine.Thought:
		return step + "thought: " + short(p.Text)
	case engine.Action:
		return step + "search: " + short(p.Query)
	case engine.Retrieval:
		return step + fmt.Sprintf("%s: %s", p.Source, plural.N(len(p.Docs), "document")) + cachedNote(p.Cached)
	case engine.Selection:
		return step + judgeLine(p)
	case engine.Observation:
		if p.Note != "" {
			return step + short(p.Note)
		}
		return step + fmt.Sprintf("observation: %s from %s", plural.N(len(p.DocIDs), "document"), p.Source)
	case engine.Answer:
		return step + "answer" + labelNote(p.Label) + ": " + short(p.Text)
	case engine.Supplement:
		return fmt.Sprintf("reflection: the question searched again, %s", plural.N(len(p.DocIDs), "document"))
	case engine.Evidence:
		return fmt.Sprintf("evidence: %s checked against their sources", plural.N(len(p.Claims), "claim"))
	case engine.Notice:
		return "notice: " + short(p.Message)
	case engine.Final:
		return "done"
	case engine.Gate, engine.Refinement, engine.ThreadContext:
		return step + ev.Type()
	case engine.Token:
		// Too many to notify.
	}
	return ""
}

// judgeLine is the judge's verdict: enough, or a switch to the next
// source, with its reason.
func judgeLine(p engine.Selection) string {
	verdict := "judge: enough"
	if p.Status == nil || !*p.Status {
		verdict = "judge: not enough"
		if p.NextSource != nil {
			verdict += " — switching to " + *p.NextSource
		}
	}
	if p.Analysis != "" {
		verdict += " (" + short(p.Analysis) + ")"
	}
	return verdict
}

func cachedNote(cached bool) string {
	if cached {
		return " (cached)"
	}
	return ""
}

func labelNote(label string) string {
	if label == "" {
		return ""
	}
	return " (" + label + ")"
}

// short is text on one line, at most about 160 characters.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		return string(r[:159]) + "…"
	}
	return s
}
