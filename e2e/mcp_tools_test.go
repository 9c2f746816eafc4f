package e2e

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// connectBy connects to a prefrag mcp of w over stdio or HTTP.
func connectBy(t *testing.T, w *world, transport string, extra ...string) *mcpClient {
	t.Helper()
	if transport == "stdio" {
		return w.mcpStdio(extra...)
	}
	return w.mcpHTTP(extra...).connect(t, nil)
}

// Issue 29's Done-when, over stdio and HTTP: tools/list shows the four
// tools with schemas; search returns passages of the pinned corpus; ask
// against the fake LLM returns a cited answer with quotes and a session id
// that `prefrag sessions show` opens, with at least one progress
// notification per step (thought, search, judge verdict, switch).
func TestMCPToolsOverStdioAndHTTP(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			w := newWorld(t, citedCaseStudy())
			c := connectBy(t, w, transport)
			ctx := context.Background()

			tools, err := c.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
				if tool.InputSchema == nil || tool.OutputSchema == nil {
					t.Errorf("tool %s lacks a schema", tool.Name)
				}
			}
			slices.Sort(names)
			if strings.Join(names, " ") != "ask fetch search sessions" {
				t.Errorf("tools %v", names)
			}

			var found struct {
				Corpus  string `json:"corpus"`
				Results []struct{ ID, Title, URL, Text, Source string }
			}
			c.callTool(t, ctx, "search", map[string]any{"query": "chemist who introduced pH"}, nil, &found)
			if found.Corpus != "wiki" || len(found.Results) == 0 || found.Results[0].Title != "S. P. L. Sørensen" || found.Results[0].Source != "local:wiki" {
				t.Errorf("search: %+v", found)
			}

			var ans askResult
			c.callTool(t, ctx, "ask", map[string]any{"question": caseQuestion}, "q1", &ans)
			checkCitedAnswer(t, ans)
			msgs := c.progressUntil(t, "q1", func(m string) bool { return m == "done" })
			all := strings.Join(msgs, "\n")
			for _, step := range []string{"thought:", "search:", "judge: enough", "judge: not enough — switching to web:searxng", "· web:searxng: "} {
				if !strings.Contains(all, step) {
					t.Errorf("no progress notification for %q in:\n%s", step, all)
				}
			}
			shown, errOut, code := w.run("sessions", "show", ans.SessionID)
			if code != 0 || !strings.Contains(shown, "died in 1974") || !strings.Contains(shown, caseQuestion) {
				t.Errorf("sessions show %s: exit %d\n%s\n%s", ans.SessionID, code, shown, errOut)
			}
			list, _, _ := w.run("sessions", "list", "--json")
			if !strings.Contains(list, `"id":"`+ans.SessionID+`"`) || !strings.Contains(list, `"status":"answered"`) {
				t.Errorf("sessions list: %s", list)
			}
		})
	}
}

func checkCitedAnswer(t *testing.T, ans askResult) {
	t.Helper()
	if !strings.Contains(ans.Answer, "died in 1974 [2]") || ans.SessionID == "" {
		t.Errorf("answer %q session %q", ans.Answer, ans.SessionID)
	}
	quotes := 0
	for _, cl := range ans.Claims {
		quotes += len(cl.Quotes)
	}
	if len(ans.Claims) < 2 || quotes == 0 {
		t.Errorf("claims %+v: want claims with supporting quotes", ans.Claims)
	}
	cited := map[string]bool{}
	for _, s := range ans.Sources {
		if s.Cited {
			cited[s.Origin] = true
		}
	}
	if !cited["local:wiki"] || !cited["web:searxng"] {
		t.Errorf("sources %+v", ans.Sources)
	}
	if len(ans.Web.Switches) != 1 || ans.Web.Switches[0].To != "web:searxng" || !ans.Web.Searched {
		t.Errorf("web %+v", ans.Web)
	}
}

// Cancelling an ask (the client's request) stops the run and leaves the
// partial session as cancelled, while the server goes on: the next
// question runs after it, and by then the session is finished.
func TestMCPCancelledAsk(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			hold := make(chan struct{})
			held := make(chan struct{}, 10)
			w := newWorld(t, fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
				if strings.Contains(c.Prompt, "SLOW") {
					held <- struct{}{}
					<-hold // until the test ends
				}
				if c.Kind() == fakellm.KindJudge {
					return fakellm.Reply{Text: `{"analysis": "fine", "status": true}`}
				}
				return fakellm.Reply{Text: "Thought: I know it.\nFinal Answer: Sørensen.\nSelf-Evaluation: CORRECT"}
			}))
			c := connectBy(t, w, transport)
			t.Cleanup(func() { close(hold) }) // before the client and server close
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				p := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "A SLOW question?"}}
				p.SetProgressToken("slow")
				_, err := c.CallTool(ctx, p)
				errc <- err
			}()
			started := c.progressUntil(t, "slow", func(m string) bool { return strings.HasSuffix(m, " started") })
			id := strings.Fields(started[len(started)-1])[1]
			<-held // the run is at the LLM server
			cancel()
			if err := <-errc; err == nil {
				t.Fatal("the cancelled call returned a result")
			}
			// Asks run one at a time: this one starts when the cancelled
			// run has ended and its session is finished.
			var next askResult
			nctx, ncancel := context.WithTimeout(context.Background(), time.Minute)
			defer ncancel()
			c.callTool(t, nctx, "ask", map[string]any{"question": "Who introduced pH?"}, nil, &next)
			var list struct {
				Sessions []struct{ ID, Status string } `json:"sessions"`
			}
			c.callTool(t, context.Background(), "sessions", map[string]any{}, nil, &list)
			status := map[string]string{}
			for _, s := range list.Sessions {
				status[s.ID] = s.Status
			}
			if status[id] != "cancelled" || status[next.SessionID] != "answered" {
				t.Errorf("statuses %v: want %s cancelled and %s answered", status, id, next.SessionID)
			}
			out, _, _ := w.run("sessions", "list", "--json")
			if !strings.Contains(out, `"id":"`+id+`"`) || !strings.Contains(out, `"status":"cancelled"`) {
				t.Errorf("sessions list: %s", out)
			}
		})
	}
}

// A tool call asking for web "auto" while the user's policy is "never"
// sends nothing to the web, and the result says so.
func TestMCPWebAutoUnderPolicyNeverSendsNothing(t *testing.T) {
	w := newWorld(t, citedCaseStudy())
	if err := os.WriteFile(w.configFile(), []byte("web = \"never\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := w.mcpStdio()
	var ans askResult
	c.callTool(t, context.Background(), "ask", map[string]any{"question": caseQuestion, "web": "auto"}, nil, &ans)
	if n := w.search.Requests(); n != 0 {
		t.Errorf("the web stand-in saw %d requests (%q)", n, w.search.Queries())
	}
	if ans.Web.Policy != "never" || ans.Web.UserPolicy != "never" || ans.Web.Searched || !strings.Contains(ans.Web.Note, "can only make it stricter") {
		t.Errorf("web %+v", ans.Web)
	}
}

// A non-loopback --http without a token is refused at start (exit 2);
// with a token, a request without it gets 401, a foreign Host or Origin
// 403; the token never shows in `prefrag config` or the log.
func TestMCPHTTPRefusals(t *testing.T) {
	w := newWorld(t, citedCaseStudy())
	_, errOut, code := w.run("mcp", "--http", "0.0.0.0:0")
	if code != 2 || !strings.Contains(errOut, "token") {
		t.Errorf("--http 0.0.0.0:0 without a token: exit %d, %q", code, errOut)
	}
	const token = "t0ken-that-must-not-leak"
	s := w.mcpHTTP("--token", token)
	tests := []struct {
		name   string
		header http.Header
		host   string
		want   int
	}{
		{"no token", nil, "", 401},
		{"wrong token", http.Header{"Authorization": {"Bearer nope"}}, "", 401},
		{"foreign Host", http.Header{"Authorization": {"Bearer " + token}}, "evil.example.com", 403},
		{"foreign Origin", http.Header{"Authorization": {"Bearer " + token}, "Origin": {"http://evil.example.com"}}, "", 403},
		{"the token", http.Header{"Authorization": {"Bearer " + token}}, "", 200},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodPost, s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
		for k, v := range tt.header {
			req.Header[k] = v
		}
		if tt.host != "" {
			req.Host = tt.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.want)
		}
	}
	c := s.connect(t, http.Header{"Authorization": {"Bearer " + token}})
	c.callTool(t, context.Background(), "search", map[string]any{"query": "pH"}, nil, nil)

	// The same token from the environment; never printed.
	cmd := w.command(context.Background(), "config")
	cmd.Env = append(cmd.Env, "PREFRAG_MCP_TOKEN="+token)
	cfg, err := cmd.Output()
	if err != nil || !strings.Contains(string(cfg), "mcp_token = (set)") || strings.Contains(string(cfg), token) {
		t.Errorf("prefrag config with PREFRAG_MCP_TOKEN: %v\n%s", err, cfg)
	}
	s.stop()
	if strings.Contains(w.readLog(), token) || strings.Contains(s.stderr.String(), token) {
		t.Errorf("the token is in the log or on stderr")
	}
}
