package mcpserve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

// testWorld is one user's home with a pinned corpus "wiki", the fake LLM
// server and a fake SearXNG, and prefrag's MCP server on it.
type testWorld struct {
	t      *testing.T
	app    *app.App
	srv    *Server
	llm    *fakellm.Server
	search *fakesearch.Server
}

const (
	sorensenText  = "# S. P. L. Sørensen\n\nSøren Peder Lauritz Sørensen (1868–1939) was a Danish chemist, famous for the introduction of the concept of pH, a scale for measuring acidity and alkalinity.\n"
	carlsbergText = "The Carlsberg Laboratory in Copenhagen was founded in 1875. Its chemistry department was led by Johan Kjeldahl and later by Sørensen.\n"
	caseQuestion  = "In what year did the Danish plant ecologist who assisted the chemist who introduced pH die?"
)

var webDocs = []fakesearch.Doc{
	{Title: "Carsten Olsen - Wikipedia", Text: "Carsten Olsen (1891–1974) was a Danish plant ecologist who assisted Søren Sørensen, the chemist who introduced pH.", URL: "https://en.wikipedia.org/wiki/Carsten_Olsen"},
}

// caseStudy is the paper's case study with a cited answer: local, judge
// true, local, judge false → web, answer citing both.
func caseStudy() *fakellm.Script {
	return &fakellm.Script{
		Steps: []string{
			"Thought: I need the chemist who introduced pH first.\nAction: Search_Engine\nAction Input: Danish chemist who introduced pH",
			"Thought: Now the plant ecologist who assisted him.\nAction: Search_Engine\nAction Input: Danish plant ecologist who assisted Sørensen",
			"Thought: I now know the final answer to the original question\nFinal Answer: Søren Sørensen, a Danish chemist, introduced the concept of pH [1]. Carsten Olsen, a Danish plant ecologist who assisted Sørensen, died in 1974 [2].\nSelf-Evaluation: CORRECT\nExplanation: Carsten Olsen died in 1974.\nImprovement Suggestions: None",
		},
		Judges: []string{
			`{"analysis": "The passage names Sørensen as the chemist.", "status": true}`,
			`{"analysis": "Only the chemist again; nothing about the ecologist.", "status": false}`,
		},
	}
}

// answering answers every question at once, without a search; its judge
// is always content.
var answering = fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
	if c.Kind() == fakellm.KindJudge {
		return fakellm.Reply{Text: `{"analysis": "fine", "status": true}`}
	}
	return fakellm.Reply{Text: "Thought: I know it.\nFinal Answer: pH was introduced by Sørensen [1].\nSelf-Evaluation: CORRECT"}
})

// newTestWorld builds the world; configLines go into the config file
// (e.g. `web = "never"`).
func newTestWorld(t *testing.T, r fakellm.Responder, configLines ...string) *testWorld {
	t.Helper()
	w := &testWorld{t: t}
	w.llm = fakellm.New(t, r)
	w.search = fakesearch.New(fakesearch.Options{Docs: webDocs})
	t.Cleanup(w.search.Close)
	home := t.TempDir()
	cfgFile := filepath.Join(home, "config.toml")
	lines := append([]string{`llm_url = "` + w.llm.URL() + `"`, `model = "fake-model"`, `web_engine = "searxng"`,
		`searxng_url = "` + w.search.URL() + `"`}, configLines...)
	if err := os.WriteFile(cfgFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PREFRAG_HOME": filepath.Join(home, "data"), "HOME": home, "PREFRAG_CONFIG": cfgFile}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if w.app, err = app.Open(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	w.index("wiki", map[string]string{"sorensen.md": sorensenText, "carlsberg.txt": carlsbergText})
	s := cfg.Settings
	s.WebChosen = cfg.WebChosen()
	w.srv = New(w.app, Options{Settings: s, Version: "test", WebAllowHint: cfg.WebAllowHint()})
	t.Cleanup(func() {
		w.srv.Close()
		w.app.Close()
	})
	return w
}

// index ingests files into corpus name (the first corpus is pinned).
func (w *testWorld) index(name string, files map[string]string) {
	w.t.Helper()
	dir := filepath.Join(w.t.TempDir(), name)
	os.MkdirAll(dir, 0o755)
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
	if _, err := catalog.Index(context.Background(), w.app.Cfg.CorporaDir(), name, []string{dir}, local.IndexOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

// client connects an SDK client in memory; progress notifications go to
// the returned channel.
func (w *testWorld) client() (*mcp.ClientSession, <-chan *mcp.ProgressNotificationParams) {
	w.t.Helper()
	prog := make(chan *mcp.ProgressNotificationParams, 1000)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { prog <- r.Params },
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := w.srv.mcp.Connect(context.Background(), st, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return cs, prog
}

// call calls a tool; with token set it asks for progress.
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any, token any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if token != nil {
		p.SetProgressToken(token)
	}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// decode reads a result's structured content into out, and checks that
// its text block holds the same JSON (some clients read only the text).
func decode(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", textOf(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canonical([]byte(textOf(res))), canonical(b); got != want {
		t.Errorf("text and structured content differ:\n%s\n%s", got, want)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

// canonical is JSON with its objects' keys in order.
func canonical(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "not JSON: " + string(b)
	}
	c, _ := json.Marshal(v)
	return string(c)
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// gate is a responder that holds every call until released, counting
// the calls it has seen.
type gate struct {
	next    fakellm.Responder
	release chan struct{}
	entered chan struct{}
	once    sync.Once
	mu      sync.Mutex
	calls   int
}

// newGate holds every call of next until open. A test registers
// t.Cleanup(g.open) after connecting its client, so that a failed test
// opens it before the client and the server close (both wait for the
// calls in flight).
func newGate(next fakellm.Responder) *gate {
	return &gate{next: next, release: make(chan struct{}), entered: make(chan struct{}, 100)}
}

// open lets every held and later call through.
func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

func (g *gate) Respond(c fakellm.Call) fakellm.Reply {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	g.entered <- struct{}{}
	<-g.release
	return g.next.Respond(c)
}

func (g *gate) seen() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// waitFor receives from ch until ok holds, failing after a generous
// limit (the effect is waited for, not a time).
func waitFor[T any](t *testing.T, ch <-chan T, what string, ok func(T) bool) T {
	t.Helper()
	limit := time.After(30 * time.Second)
	for {
		select {
		case v := <-ch:
			if ok(v) {
				return v
			}
		case <-limit:
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}
