package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// prefrag mcp against the real binary, as an agent's client runs it: over
// stdio (the client starts the command) and over streamable HTTP.

// mcpArgs are `prefrag mcp` with the flags that point it at the fakes.
func (w *world) mcpArgs(extra ...string) []string {
	return append([]string{"mcp", "--llm-url", w.llm.URL(), "--model", "fake-model",
		"--web-engine", "searxng", "--searxng-url", w.search.URL()}, extra...)
}

// mcpClient is an SDK client session to a prefrag mcp process and the
// progress notifications it received.
type mcpClient struct {
	*mcp.ClientSession
	progress chan *mcp.ProgressNotificationParams
}

func newMCPClient() (*mcp.Client, chan *mcp.ProgressNotificationParams) {
	prog := make(chan *mcp.ProgressNotificationParams, 1000)
	return mcp.NewClient(&mcp.Implementation{Name: "prefrag-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { prog <- r.Params },
	}), prog
}

// mcpStdio starts `prefrag mcp` as a client's command and connects.
func (w *world) mcpStdio(extra ...string) *mcpClient {
	w.t.Helper()
	c, prog := newMCPClient()
	cmd := w.command(context.Background(), w.mcpArgs(extra...)...)
	cmd.Stderr = &lockedBuffer{}
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		w.t.Fatalf("connecting to prefrag mcp: %v\nstderr: %s", err, cmd.Stderr)
	}
	w.t.Cleanup(func() { cs.Close() })
	return &mcpClient{cs, prog}
}

// mcpServer is a running `prefrag mcp --http` process.
type mcpServer struct {
	URL    string
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
}

var servingLine = regexp.MustCompile(`serving MCP at (http://\S+)`)

// mcpHTTP starts `prefrag mcp --http 127.0.0.1:0` and waits for the line
// that says where it listens. It is stopped (SIGINT) at cleanup.
func (w *world) mcpHTTP(extra ...string) *mcpServer {
	w.t.Helper()
	s := &mcpServer{stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = w.command(context.Background(), w.mcpArgs(append([]string{"--http", "127.0.0.1:0"}, extra...)...)...)
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.stderr.WriteString(sc.Text() + "\n")
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	go func() { s.cmd.Wait(); close(s.done) }()
	w.t.Cleanup(s.stop)
	select {
	case url, ok := <-found:
		if !ok {
			<-s.done
			w.t.Fatalf("prefrag mcp --http ended before serving: %s", s.stderr)
		}
		s.URL = url
	case <-time.After(30 * time.Second):
		w.t.Fatalf("prefrag mcp --http did not say where it listens: %s", s.stderr)
	}
	return s
}

// stop interrupts the server and waits for it to end.
func (s *mcpServer) stop() {
	s.cmd.Process.Signal(interruptSignal)
	<-s.done
}

// connect opens an SDK client session over streamable HTTP; header is
// sent with every request.
func (s *mcpServer) connect(t *testing.T, header http.Header) *mcpClient {
	t.Helper()
	c, prog := newMCPClient()
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.URL,
		HTTPClient: &http.Client{Transport: withHeader{header}}}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v\nstderr: %s", s.URL, err, s.stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpClient{cs, prog}
}

type withHeader struct{ h http.Header }

func (t withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// lockedBuffer is a strings.Builder safe for a writer and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) WriteString(s string) { l.Write([]byte(s)) }

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// callTool calls a tool, with a progress token when token is not nil,
// and decodes its structured result into out (nil: none). It fails on a
// tool error.
func (c *mcpClient) callTool(t *testing.T, ctx context.Context, tool string, args map[string]any, token any, out any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if token != nil {
		p.SetProgressToken(token)
	}
	res, err := c.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", tool, resultText(res))
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
		var fromText any
		if err := json.Unmarshal([]byte(resultText(res)), &fromText); err != nil {
			t.Errorf("%s: the text content is not the result's JSON: %q", tool, resultText(res))
		}
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// progressUntil collects the progress messages of token up to the one
// done says is the last (the client may handle notifications after the
// result arrived).
func (c *mcpClient) progressUntil(t *testing.T, token any, done func(string) bool) []string {
	t.Helper()
	var msgs []string
	limit := time.After(30 * time.Second)
	for {
		select {
		case p := <-c.progress:
			if p.ProgressToken != token && fmt.Sprint(p.ProgressToken) != fmt.Sprint(token) {
				continue
			}
			msgs = append(msgs, p.Message)
			if done(p.Message) {
				return msgs
			}
		case <-limit:
			t.Fatalf("no last progress notification; got %q", msgs)
		}
	}
}

// askResult is the part of the ask tool's result the tests read.
type askResult struct {
	SessionID string `json:"session_id"`
	Answer    string `json:"answer"`
	Claims    []struct {
		Text      string `json:"text"`
		Citations []int  `json:"citations"`
		Verdict   string `json:"verdict"`
		Quotes    []struct {
			Source int    `json:"source"`
			Text   string `json:"text"`
		} `json:"quotes"`
	} `json:"claims"`
	Sources []struct {
		N      int    `json:"n"`
		Origin string `json:"origin"`
		Cited  bool   `json:"cited"`
	} `json:"sources"`
	Web struct {
		Policy     string   `json:"policy"`
		UserPolicy string   `json:"user_policy"`
		Searched   bool     `json:"searched"`
		Note       string   `json:"note"`
		HeldBack   []string `json:"held_back"`
		Switches   []struct {
			To string `json:"to"`
		} `json:"switches"`
	} `json:"web"`
}

// citedCaseStudy is the case study whose answer cites the local passage
// and the web page.
func citedCaseStudy() *fakellm.Script {
	s := caseStudyScript()
	s.Steps[2] = "Thought: I now know the final answer to the original question\nFinal Answer: Søren Sørensen, a Danish chemist, introduced the concept of pH [1]. Carsten Olsen, a Danish plant ecologist who assisted Sørensen, died in 1974 [2].\nSelf-Evaluation: CORRECT\nExplanation: found\nImprovement Suggestions: None"
	return s
}

// readLog is the world's log file ("" when none).
func (w *world) readLog() string {
	b, _ := os.ReadFile(w.home + "/data/prefrag.log")
	return string(b)
}
