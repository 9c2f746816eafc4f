package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/mcpfake"
	"github.com/prefrag/prefrag/internal/testdouble/npmtool"
)

// The tests of this file run MCP servers as sources: the real
// knowledge-graph memory server and the protocol's reference server from
// npm (npmtool), and the project's fault server (mcpfake).

// declareMCP writes the world's mcp.json ($XDG_CONFIG_HOME/prefrag).
func (w *world) declareMCP(servers map[string]any) {
	w.t.Helper()
	b, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	p := filepath.Join(w.home, "config", "prefrag", "mcp.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// heronMemory is the memory server's graph: what the corpus does not know.
const heronMemory = `{"type":"entity","name":"Project Heron","entityType":"project","observations":["Project Heron is led by Ada Varga","It replaces the billing pipeline in 2027"]}
{"type":"entity","name":"Ada Varga","entityType":"person","observations":["Ada Varga joined the company in 2021"]}
{"type":"relation","from":"Ada Varga","to":"Project Heron","relationType":"leads"}
`

const heronQuestion = "Who leads Project Heron?"

// memoryWorld is the case-study world with a corpus page that names
// Project Heron but not its lead, and the real memory server declared.
func memoryWorld(t *testing.T, script *queue) *world {
	t.Helper()
	bin := npmtool.Bin(t, "mcp-server-memory")
	w := newWorld(t, script)
	w.write("heron.md", "# Project Heron\n\nProject Heron is a billing initiative. Its staffing is tracked elsewhere.\n")
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	mem := filepath.Join(w.home, "memory.jsonl")
	if err := os.WriteFile(mem, []byte(heronMemory), 0o644); err != nil {
		t.Fatal(err)
	}
	w.declareMCP(map[string]any{"memory": map[string]any{"command": bin, "env": map[string]string{"MEMORY_FILE_PATH": mem}}})
	return w
}

// heronScript: the corpus has a page on Heron but not its lead (the judge
// says so), the memory server is searched next, and the answer cites it.
func heronScript(script *queue) {
	script.add([]string{
		"Thought: I need who leads Project Heron.\nAction: Search_Engine\nAction Input: Project Heron",
		"Thought: The memory names the lead.\nFinal Answer: Ada Varga leads Project Heron [1].\nSelf-Evaluation: CORRECT\nExplanation: stated in [1]",
	}, []string{`{"analysis":"the corpus page does not say who leads Heron","status":false}`})
}

// TestMCPMemoryServerAnswers: a question the pinned corpus cannot answer
// is judged insufficient locally, the real memory server is searched next
// (before the web, which is never asked), and the answer cites its entity
// with the MCP badge in the text output, --json and the HTML report.
func TestMCPMemoryServerAnswers(t *testing.T) {
	for _, mode := range []string{"text", "json"} {
		t.Run(mode, func(t *testing.T) {
			script := &queue{}
			w := memoryWorld(t, script)
			heronScript(script)
			args := w.askArgs("--corpus", "wiki", heronQuestion)
			if mode == "json" {
				args = w.askArgs("--corpus", "wiki", "--json", heronQuestion)
			}
			out, errOut, code := w.run(args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if n := w.search.Requests(); n != 0 {
				t.Errorf("the web stand-in got %d requests, want 0", n)
			}
			if mode == "text" {
				for _, want := range []string{"MCP memory", "Judge: switching to mcp:memory", "[1] Project Heron [MCP memory]", "retrievals local 1, mcp 1, web 0"} {
					if !strings.Contains(out, want) {
						t.Errorf("text output lacks %q:\n%s", want, out)
					}
				}
				return
			}
			evs := parseEvents(t, out)
			var srcs []string
			for _, r := range payloadsOf[engine.Retrieval](evs) {
				srcs = append(srcs, r.Source)
			}
			if strings.Join(srcs, " ") != "local:wiki mcp:memory" {
				t.Errorf("retrievals from %v, want the corpus then the memory server", srcs)
			}
			f := payloadsOf[engine.Final](evs)
			if len(f) != 1 || len(f[0].Sources) == 0 || f[0].Sources[0].Source != "mcp:memory" || f[0].Sources[0].Title != "Project Heron" ||
				!strings.Contains(f[0].Sources[0].Text, "led by Ada Varga") || f[0].Counts.MCPRetrievals != 1 {
				t.Fatalf("final %+v", f)
			}
			id := payloadsOf[engine.SessionStart](evs)
			if len(id) != 1 || strings.Join(id[0].Config.MCP, ",") != "mcp:memory" {
				t.Errorf("session config names MCP %v", id[0].Config.MCP)
			}
			html := filepath.Join(w.home, "a.html")
			if o, e, c := w.run("sessions", "export", evs[0].Session, "--format", "html", "-o", html); c != 0 {
				t.Fatalf("export: %d %s %s", c, o, e)
			}
			page, _ := os.ReadFile(html)
			for _, want := range []string{`class="badge mcp"`, "mcp:memory", "Project Heron", "1 MCP"} {
				if !strings.Contains(string(page), want) {
					t.Errorf("HTML report lacks %q", want)
				}
			}
		})
	}
}

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

// mcpFakeBin builds cmd/mcpfake once per test process.
func mcpFakeBin(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		fakeBin = filepath.Join(filepath.Dir(binary), "mcpfake")
		out, err := exec.Command("go", "build", "-o", fakeBin, "github.com/prefrag/prefrag/internal/testdouble/mcpfake/cmd/mcpfake").CombinedOutput()
		if err != nil {
			fakeErr = fmt.Errorf("building mcpfake: %v\n%s", err, out)
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

// TestMCPNeverLeaveByTransport: under --never-leave, once the context
// holds the never-leave corpus's passage, a step whose query carries its
// secret switches to the MCP server: an http one gets no query (held back
// like the web; headless there is no one to ask), a stdio one gets it (it
// does not leave the machine).
func TestMCPNeverLeaveByTransport(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			script := &queue{}
			w := vaultWorld(t, script)
			queries := filepath.Join(w.home, "queries")
			rec := &mcpfake.Recorder{}
			switch transport {
			case "http":
				srv := httptest.NewServer(mcpfake.Handler(mcpfake.Options{Log: rec.Log}))
				t.Cleanup(srv.Close)
				w.declareMCP(map[string]any{"kb": map[string]any{"url": srv.URL}})
			case "stdio":
				w.declareMCP(map[string]any{"kb": map[string]any{"command": mcpFakeBin(t), "args": []string{"-queries", queries}}})
			}
			script.add([]string{
				"Thought: The notes may say.\nAction: Search_Engine\nAction Input: vault password",
				"Thought: Who else?\nAction: Search_Engine\nAction Input: who knows " + vaultSecret,
				"Thought: Done.\nFinal Answer: Ada [1].\nSelf-Evaluation: CORRECT\nExplanation: stated in [1]",
			}, []string{judgeSays(true), judgeSays(false)})
			out, errOut, code := w.run(w.askArgs("--corpus", "notes", "--never-leave", "notes", "--json", vaultQuestion)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			got := rec.Queries()
			if b, err := os.ReadFile(queries); err == nil {
				got = strings.Fields(strings.TrimSpace(string(b)))
			}
			obs := payloadsOf[engine.Observation](parseEvents(t, out))
			switch transport {
			case "http":
				if len(got) != 0 {
					t.Fatalf("the http MCP server got queries %q from a context holding never-leave passages", got)
				}
				if len(obs) != 2 || !strings.Contains(obs[1].Note, "mcp:kb was not searched") || !strings.Contains(obs[1].Note, "never-leave") {
					t.Errorf("observations %+v: want the second to say why mcp:kb was not searched", obs)
				}
			case "stdio":
				if !strings.Contains(strings.Join(got, " "), vaultSecret) {
					t.Errorf("the stdio MCP server got %q, want the step's query", got)
				}
			}
			if n := w.search.Requests(); n != 0 {
				t.Errorf("the web got %d requests", n)
			}
		})
	}
}

// everythingHTTP starts the reference server over streamable HTTP on a
// free loopback port and returns its /mcp address.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	bin := npmtool.Bin(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprint("PORT=", port))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("server-everything exited before listening")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything did not listen within 30 s")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestSourcesCheckRealServers: `prefrag sources` and `sources check`
// against the real memory server (stdio) and the reference server over
// stdio and streamable HTTP (searched with its echo tool, named in the
// declaration).
func TestSourcesCheckRealServers(t *testing.T) {
	script := &queue{}
	w := memoryWorld(t, script)
	everything := npmtool.Bin(t, "mcp-server-everything")
	url := everythingHTTP(t)
	mem := filepath.Join(w.home, "memory.jsonl")
	w.declareMCP(map[string]any{
		"memory":          map[string]any{"command": npmtool.Bin(t, "mcp-server-memory"), "env": map[string]string{"MEMORY_FILE_PATH": mem}},
		"everything":      map[string]any{"command": everything, "args": []string{"stdio"}, "tool": "echo"},
		"everything-http": map[string]any{"url": url, "tool": "echo", "headers": map[string]string{"Authorization": "Bearer e2e-secret-9"}},
	})
	out, errOut, code := w.run("sources", "--corpus", "wiki")
	if code != 0 {
		t.Fatalf("sources: %d\n%s\n%s", code, out, errOut)
	}
	declared := "MCP servers (declared in " + filepath.Join(w.home, "config", "prefrag", "mcp.json") + ";"
	for _, want := range []string{"local:wiki", "mcp:memory", "search_nodes", "mcp:everything ", "mcp:everything-http", "echo", "web:duckduckgo", declared} {
		if !strings.Contains(out, want) {
			t.Errorf("sources lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+errOut, "e2e-secret-9") {
		t.Errorf("a header's secret is shown:\n%s", out)
	}
	cases := []struct{ name, query, want string }{
		{"mcp:memory", "Heron", "1. Project Heron"},
		{"mcp:everything", "hello", "Echo: hello"},
		{"mcp:everything-http", "over http", "Echo: over http"},
	}
	for _, c := range cases {
		out, errOut, code := w.run("sources", "check", c.name, "--query", c.query)
		if code != 0 || !strings.Contains(out, c.want) || !strings.Contains(out, "tools (") {
			t.Errorf("sources check %s: exit %d\n%s\n%s", c.name, code, out, errOut)
		}
		if strings.Contains(out+errOut, "e2e-secret-9") {
			t.Errorf("sources check %s shows a secret", c.name)
		}
	}
	// What holds is shown: a never-leave corpus and server say so.
	out, errOut, code = w.run("sources", "--corpus", "wiki", "--never-leave", "wiki", "--never-leave", "mcp:memory")
	for _, row := range []string{"local:wiki", "mcp:memory"} {
		if code != 0 || !regexp.MustCompile(`(?m)^` + row + ` .*never-leave, `).MatchString(out) {
			t.Errorf("sources --never-leave: exit %d, %s not shown never-leave:\n%s\n%s", code, row, out, errOut)
		}
	}
	_, errOut, code = w.run("sources", "check", "mcp:memroy")
	if code != 2 || !strings.Contains(errOut, "did you mean mcp:memory?") {
		t.Errorf("unknown name: exit %d, %s", code, errOut)
	}
}

// pidsIn reads the pids mcpfake -starts appended, one a line.
func pidsIn(t *testing.T, file string) []int {
	t.Helper()
	b, _ := os.ReadFile(file)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		var pid int
		if _, err := fmt.Sscan(f, &pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// alive reports whether pid is a running process (a zombie is not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// faultWorld is the case-study world with mcpfake declared as "kb" in a
// mode, with a short timeout; the step's query is judged not enough in
// the corpus, so it goes to kb, then on.
func faultWorld(t *testing.T, mode string, steps int) (*world, string, *queue) {
	t.Helper()
	script := &queue{}
	w := newWorld(t, script)
	starts := filepath.Join(w.home, "starts")
	w.declareMCP(map[string]any{"kb": map[string]any{"command": mcpFakeBin(t), "args": []string{"-mode", mode, "-starts", starts}, "timeout": "1s"}})
	var stepReplies, judges []string
	for i := range steps {
		stepReplies = append(stepReplies, fmt.Sprintf("Thought: Search.\nAction: Search_Engine\nAction Input: Heron pipeline %d Sørensen", i+1))
		judges = append(judges, `{"analysis":"the corpus lacks it","status":false}`)
	}
	stepReplies = append(stepReplies, "Thought: Done.\nFinal Answer: Carsten Olsen [1].\nSelf-Evaluation: CORRECT\nExplanation: ok")
	script.add(stepReplies, judges)
	return w, starts, script
}

// TestMCPFaultsInARun: each fault of a bad server is a one-line reason
// in the trajectory (the kb retrieval's note and a notice that is not
// fatal), the step goes on to the next source (the web), the run answers
// (exit 0), no document of the failed call is used, and no process of the
// server is left when prefrag exits.
func TestMCPFaultsInARun(t *testing.T) {
	cases := []struct{ mode, reason string }{
		{"nostart", "cannot open the index"},
		{mcpfake.ModeExit, "the server exited"},
		{mcpfake.ModeHang, "did not answer within 1s"},
		{mcpfake.ModeError, "answered with an error: the index is offline"},
		{mcpfake.ModeNotJSON, "not JSON-RPC"},
		{mcpfake.ModeNoSearch, "no search tool"},
		{"/no/such/mcp-server", "does not exist"},
		{"/no-such-mcp-server-on-path", "was not found"},
	}
	for _, c := range cases {
		t.Run(strings.TrimPrefix(c.mode, "/"), func(t *testing.T) {
			w, starts, _ := faultWorld(t, c.mode, 1)
			switch {
			case strings.HasPrefix(c.mode, "/no-such"):
				w.declareMCP(map[string]any{"kb": map[string]any{"command": c.mode[1:]}})
			case strings.HasPrefix(c.mode, "/"):
				w.declareMCP(map[string]any{"kb": map[string]any{"command": c.mode}})
			}
			out, errOut, code := w.run(w.askArgs("--corpus", "wiki", "--json", caseQuestion)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			evs := parseEvents(t, out)
			var kb *engine.Retrieval
			for _, r := range payloadsOf[engine.Retrieval](evs) {
				if r.Source == "mcp:kb" {
					kb = &r
				}
			}
			if kb == nil || kb.Outcome != engine.OutcomeUnavailable || !strings.Contains(kb.Note, c.reason) || strings.Contains(kb.Note, "\n") || len(kb.Docs) != 0 {
				t.Fatalf("kb retrieval %+v: want unavailable, one line with %q, no documents", kb, c.reason)
			}
			var said bool
			for _, n := range payloadsOf[engine.Notice](evs) {
				said = said || !n.Fatal && strings.Contains(n.Message, c.reason)
			}
			obs := payloadsOf[engine.Observation](evs)
			if !said || len(obs) != 1 || obs[0].Source != "web:searxng" || !strings.Contains(obs[0].Note, "mcp:kb unavailable") {
				t.Errorf("notice said %v; observations %+v: want the web's, with kb's reason", said, obs)
			}
			if n := w.search.Requests(); n != 1 {
				t.Errorf("the web got %d requests, want 1 (the step went on to it)", n)
			}
			for _, pid := range pidsIn(t, starts) {
				if alive(pid) {
					t.Errorf("server process %d outlived prefrag", pid)
				}
			}
		})
	}
}

// TestMCPConnectionReusedAndClosed: two steps that both switch to the MCP
// server use one process (started once), and it is gone when the run
// ends; a cut answer (megabytes) is used as partial results, said so.
// The second search brings back the documents of the first: nothing new,
// so its query goes on to the web.
func TestMCPConnectionReusedAndClosed(t *testing.T) {
	for _, mode := range []string{mcpfake.ModeOK, mcpfake.ModeHuge} {
		t.Run(mode, func(t *testing.T) {
			w, starts, _ := faultWorld(t, mode, 2)
			out, errOut, code := w.run(w.askArgs("--corpus", "wiki", "--json", caseQuestion)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			pids := pidsIn(t, starts)
			if len(pids) != 1 {
				t.Fatalf("the server was started %d times for two searches, want once", len(pids))
			}
			if alive(pids[0]) {
				t.Errorf("server process %d outlived the run", pids[0])
			}
			var kb []engine.Retrieval
			for _, r := range payloadsOf[engine.Retrieval](parseEvents(t, out)) {
				if r.Source == "mcp:kb" {
					kb = append(kb, r)
				}
			}
			if len(kb) != 2 {
				t.Fatalf("%d kb retrievals, want 2", len(kb))
			}
			if mode == mcpfake.ModeHuge && (kb[0].Outcome != engine.OutcomeTruncated || len(kb[0].Docs) == 0 || !strings.Contains(kb[0].Note, "256 KiB of text")) {
				t.Errorf("huge answer: %s %q with %d docs", kb[0].Outcome, kb[0].Note, len(kb[0].Docs))
			}
			// Step 1 takes kb's documents; step 2's kb search brings the
			// same ones back, nothing new, so its query goes on to the web
			// (and only that one).
			if n := w.search.Requests(); n != 1 {
				t.Errorf("the web got %d requests, want 1 (step 2's, after kb brought nothing new)", n)
			}
			obs := payloadsOf[engine.Observation](parseEvents(t, out))
			if len(obs) != 2 || obs[0].Source != "mcp:kb" || !strings.Contains(obs[1].Note, "mcp:kb brought only documents obtained before") {
				t.Errorf("observations %+v: want kb's at step 1, the web's with kb's note at step 2", obs)
			}
		})
	}
}

// TestMCPSecretsNeverShown: the values of a declaration's env and headers
// (and a URL's token) appear nowhere prefrag writes: stdout and stderr of
// ask and sources, the events, the log, an export, `prefrag config`.
func TestMCPSecretsNeverShown(t *testing.T) {
	const envSecret, headerSecret, urlSecret = "env-secret-4417", "hdr-secret-8812", "url-secret-5523"
	script := &queue{}
	w := newWorld(t, script)
	srv := httptest.NewServer(mcpfake.Handler(mcpfake.Options{}))
	t.Cleanup(srv.Close)
	w.declareMCP(map[string]any{
		"kb":   map[string]any{"url": srv.URL + "/?token=" + urlSecret, "headers": map[string]string{"Authorization": "Bearer " + headerSecret}},
		"down": map[string]any{"command": mcpFakeBin(t), "args": []string{"-mode", "nostart"}, "env": map[string]string{"API_KEY": envSecret}},
	})
	script.add([]string{
		"Thought: Search.\nAction: Search_Engine\nAction Input: Heron pipeline",
		"Thought: Done.\nFinal Answer: Ada Varga [1].\nSelf-Evaluation: CORRECT\nExplanation: ok",
	}, []string{`{"analysis":"the corpus lacks it","status":false}`})
	out, errOut, code := w.run(w.askArgs("--corpus", "wiki", "--prefer", "wiki,mcp:down", "--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	evs := parseEvents(t, out)
	var used bool
	for _, o := range payloadsOf[engine.Observation](evs) {
		used = used || o.Source == "mcp:kb"
	}
	if !used {
		t.Fatalf("the step did not go on to mcp:kb after mcp:down failed: %+v", payloadsOf[engine.Observation](evs))
	}
	all := out + errOut
	for _, args := range [][]string{{"sources", "--json"}, {"sources"}, {"config"}, {"sessions", "export", evs[0].Session, "--format", "json"}, {"sessions", "show", evs[0].Session}} {
		o, e, _ := w.run(args...)
		all += o + e
	}
	logText, _ := os.ReadFile(filepath.Join(w.home, "data", "prefrag.log"))
	all += string(logText)
	for _, s := range []string{envSecret, headerSecret, urlSecret} {
		if strings.Contains(all, s) {
			t.Errorf("the secret %q appears in prefrag's output, events, log or export", s)
		}
	}
}
