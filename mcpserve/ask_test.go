package mcpserve

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/store"
)

// ask runs the PrefRAG loop like `prefrag ask`: the case study's answer
// with its claims, quotes and sources, the switch to the web and why, the
// counts, and a session stored like any other; with a progress token, one
// notification per step (thought, search, judge verdict, switch).
func TestAskCitedAnswerWithProgress(t *testing.T) {
	w := newTestWorld(t, caseStudy(), `web = "auto"`)
	cs, prog := w.client()
	var out AskOutput
	decode(t, call(t, context.Background(), cs, "ask", map[string]any{"question": caseQuestion}, "tok-1"), &out)

	if !strings.Contains(out.Answer, "1974 [2]") || out.Label != "CORRECT" || out.Forced {
		t.Errorf("answer %q label %q forced %v", out.Answer, out.Label, out.Forced)
	}
	quoted := 0
	for _, c := range out.Claims {
		if len(c.Citations) == 0 || c.Verdict == "" {
			t.Errorf("claim %+v", c)
		}
		for _, q := range c.Quotes {
			if q.Text == "" || q.Source == 0 {
				t.Errorf("quote %+v", q)
			}
			quoted++
		}
	}
	if len(out.Claims) < 2 || quoted == 0 {
		t.Errorf("claims %+v: want two claims and a supporting quote", out.Claims)
	}
	var local, web bool
	for _, s := range out.Sources {
		local = local || s.Origin == "local:wiki" && strings.HasPrefix(s.ID, "wiki:") && s.Cited
		web = web || s.Origin == "web:searxng" && s.URL == webDocs[0].URL && s.Cited
	}
	if !local || !web {
		t.Errorf("sources %+v: want the cited local passage and web page", out.Sources)
	}
	if out.Web.Policy != "auto" || !out.Web.Searched || len(out.Web.Switches) != 1 || out.Web.Switches[0].To != "web:searxng" ||
		!strings.Contains(out.Web.Switches[0].Reason, "nothing about the ecologist") || out.Web.Note != "" {
		t.Errorf("web %+v", out.Web)
	}
	if out.Counts.LocalRetrievals != 2 || out.Counts.WebRetrievals != 1 || out.Counts.JudgeCalls != 2 {
		t.Errorf("counts %+v", out.Counts)
	}
	rec, err := w.app.Store.GetSession(context.Background(), out.SessionID)
	if err != nil || rec.Session.Status != store.StatusAnswered || rec.Session.Question != caseQuestion || out.Resource != "prefrag://sessions/"+out.SessionID {
		t.Fatalf("stored session %q: %+v %v (resource %q)", out.SessionID, rec, err, out.Resource)
	}

	// One notification per step event, each with the token, counting up;
	// the client may handle the last ones after the result, so they are
	// read up to "done".
	var msgs []string
	last := 0.0
	waitFor(t, prog, "the last notification", func(p *mcp.ProgressNotificationParams) bool {
		if p.ProgressToken != "tok-1" || p.Progress <= last {
			t.Errorf("notification %+v after progress %v", p, last)
		}
		last = p.Progress
		msgs = append(msgs, p.Message)
		return p.Message == "done"
	})
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"session " + out.SessionID + " started", "step 1 · thought:", "step 1 · search: Danish chemist who introduced pH",
		"step 1 · local:wiki: 1 document", "step 1 · judge: enough", "step 2 · judge: not enough — switching to web:searxng",
		"step 2 · web:searxng: 1 document", "step 3 · answer (CORRECT)", "done"} {
		if !strings.Contains(all, want) {
			t.Errorf("no progress notification %q in:\n%s", want, all)
		}
	}
	if steps := len(rec.Events); len(msgs) < steps-2 {
		t.Errorf("%d notifications for %d stored events", len(msgs), steps)
	}
}

// Without a progress token nothing is sent but the result.
func TestAskWithoutTokenSendsNoProgress(t *testing.T) {
	w := newTestWorld(t, answering, `web = "auto"`)
	cs, prog := w.client()
	var out AskOutput
	decode(t, call(t, context.Background(), cs, "ask", map[string]any{"question": "Who introduced pH?"}, nil), &out)
	// A second ask with a token: everything notified up to its end is
	// its own.
	decode(t, call(t, context.Background(), cs, "ask", map[string]any{"question": "Who introduced pH?"}, "second"), &out)
	waitFor(t, prog, "the second ask's end", func(p *mcp.ProgressNotificationParams) bool {
		if p.ProgressToken != "second" {
			t.Errorf("notification %+v of the ask without a token", p)
		}
		return p.Message == "done"
	})
}

// A cancelled ask stops the run and keeps the partial session as
// cancelled.
func TestAskCancelledKeepsPartialSession(t *testing.T) {
	g := newGate(caseStudy())
	w := newTestWorld(t, g, `web = "auto"`)
	cs, prog := w.client()
	t.Cleanup(g.open) // (cleanups run last first: before the client closes)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": caseQuestion}}
		p.SetProgressToken("c")
		_, err := cs.CallTool(ctx, p)
		errc <- err
	}()
	started := waitFor(t, prog, "the session to start", func(p *mcp.ProgressNotificationParams) bool { return strings.Contains(p.Message, "started") })
	id := strings.Fields(started.Message)[1]
	<-g.entered // the first reasoning call is at the server
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	g.open()
	w.srv.Close() // waits for the run to end
	rec, err := w.app.Store.GetSession(context.Background(), id)
	if err != nil || rec.Session.Status != store.StatusCancelled {
		t.Fatalf("session %s after cancel: %+v %v", id, rec, err)
	}
	if last := rec.Events[len(rec.Events)-1]; !last.Payload.(engine.Final).Cancelled {
		t.Errorf("last event %+v, want a cancelled final", last)
	}
}

// A long ask does not block search, and a second ask waits for the first
// (queued, told so) instead of running beside it on the LLM server's
// slots; each ask is its own session.
func TestAsksQueueAndSearchRunsBeside(t *testing.T) {
	g := newGate(answering)
	w := newTestWorld(t, g, `web = "never"`)
	cs, prog := w.client()
	t.Cleanup(g.open) // (cleanups run last first: before the client closes)
	type done struct {
		out AskOutput
		res *mcp.CallToolResult
	}
	results := make(chan done, 2)
	ask := func(token string) {
		res := call(t, context.Background(), cs, "ask", map[string]any{"question": "Who introduced pH?"}, token)
		var out AskOutput
		decode(t, res, &out)
		results <- done{out, res}
	}
	go ask("first")
	<-g.entered // the first ask is at the LLM server, held there
	go ask("second")
	waitFor(t, prog, "the second ask to be queued", func(p *mcp.ProgressNotificationParams) bool {
		return p.ProgressToken == "second" && strings.HasPrefix(p.Message, "waiting: 1 question before this one")
	})
	var found SearchOutput
	decode(t, call(t, context.Background(), cs, "search", map[string]any{"query": "pH"}, nil), &found)
	if len(found.Results) != 1 {
		t.Errorf("search during an ask: %+v", found)
	}
	if n := g.seen(); n != 1 {
		t.Errorf("the LLM server saw %d calls while the first ask held it, want 1 (the second must wait)", n)
	}
	g.open()
	a, b := <-results, <-results
	if a.out.SessionID == "" || a.out.SessionID == b.out.SessionID {
		t.Errorf("session ids %q and %q", a.out.SessionID, b.out.SessionID)
	}
	list, err := w.app.Store.ListSessions(context.Background(), store.Filter{})
	if err != nil || len(list) != 2 || list[0].Status != store.StatusAnswered || list[1].Status != store.StatusAnswered {
		t.Errorf("sessions %+v %v", list, err)
	}
}
