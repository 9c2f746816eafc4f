package mcpserve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// sessions lists what ask stored, and each session reads as a resource in
// Markdown and as the HTML report; an unknown one is "not found".
func TestSessionsAndResources(t *testing.T) {
	w := newTestWorld(t, caseStudy(), `web = "auto"`)
	cs, _ := w.client()
	var asked AskOutput
	decode(t, call(t, context.Background(), cs, "ask", map[string]any{"question": caseQuestion}, nil), &asked)
	var list SessionsOutput
	decode(t, call(t, context.Background(), cs, "sessions", map[string]any{}, nil), &list)
	if len(list.Sessions) != 1 {
		t.Fatalf("sessions %+v", list)
	}
	s := list.Sessions[0]
	if s.ID != asked.SessionID || s.Question != caseQuestion || s.Status != "answered" || s.Answer != asked.Answer || s.Resource != asked.Resource {
		t.Errorf("listed %+v, asked %+v", s, asked)
	}
	md, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: s.Resource})
	if err != nil {
		t.Fatal(err)
	}
	if c := md.Contents[0]; c.MIMEType != "text/markdown" || !strings.Contains(c.Text, caseQuestion) || !strings.Contains(c.Text, "1974") {
		t.Errorf("Markdown resource %s: %.300s", c.MIMEType, c.Text)
	}
	html, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: s.Report})
	if err != nil {
		t.Fatal(err)
	}
	if c := html.Contents[0]; c.MIMEType != "text/html" || !strings.Contains(c.Text, "<html") {
		t.Errorf("HTML resource %s: %.300s", c.MIMEType, c.Text)
	}
	templates, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(templates.ResourceTemplates) != 2 {
		t.Errorf("resource templates %+v %v", templates, err)
	}
	for _, uri := range []string{"prefrag://sessions/ffffffffff", "prefrag://sessions/" + s.ID + "/other"} {
		if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("read %s: %v, want not found", uri, err)
		}
	}
}

// What the tools return is shown by agents, terminal ones among them: no
// escape sequence or control character of a stored text (an imported
// session's question, a model's answer) reaches the client.
func TestToolOutputIsCleaned(t *testing.T) {
	hostile := fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		if c.Kind() == fakellm.KindJudge {
			return fakellm.Reply{Text: `{"analysis": "fine", "status": true}`}
		}
		return fakellm.Reply{Text: "Thought: I know it.\nFinal Answer: pH \x1b]8;;http://evil.example\x07was\x1b]8;;\x07 introduced by Sørensen \x1b[2J[1].\nSelf-Evaluation: CORRECT"}
	})
	w := newTestWorld(t, hostile, `web = "never"`)
	cs, _ := w.client()
	ctx := context.Background()
	question := "Who \x1b]0;pwned\x07introduced \x1b[31mpH\x1b[0m?"
	results := []*mcp.CallToolResult{call(t, ctx, cs, "ask", map[string]any{"question": question}, nil)}
	results = append(results, call(t, ctx, cs, "sessions", map[string]any{}, nil))
	for i, res := range results {
		b, _ := json.Marshal(res.StructuredContent)
		for _, s := range []string{string(b), textOf(res)} {
			if strings.Contains(s, "\x1b") || strings.Contains(s, `\u001b`) || strings.Contains(s, `\u0007`) {
				t.Errorf("result %d carries an escape sequence: %.400s", i, s)
			}
		}
	}
	var list SessionsOutput
	decode(t, results[1], &list)
	if len(list.Sessions) != 1 || list.Sessions[0].Question != "Who introduced pH?" || !strings.Contains(list.Sessions[0].Answer, "pH was introduced by Sørensen") {
		t.Errorf("sessions %+v", list.Sessions)
	}
}
