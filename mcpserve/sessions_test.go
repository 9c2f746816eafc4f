package mcpserve

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
