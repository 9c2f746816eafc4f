// Package e2e runs the real prefrag binary against the project's fake LLM
// server and a fake search engine, as a user's scripts would.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "prefrag-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "prefrag")
	build := exec.Command("go", "build", "-o", binary, "github.com/prefrag/prefrag")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building prefrag:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// world is one user's machine: a prefrag home, a fake LLM server and a
// fake SearXNG instance on loopback.
type world struct {
	t      *testing.T
	home   string
	llm    *fakellm.Server
	search *fakesearch.Server
	docs   string
}

var caseQuestion = "In what year did the Danish plant ecologist who assisted the chemist who introduced pH die?"

var webDocs = []fakesearch.Doc{
	{Title: "Carsten Olsen - Wikipedia", Text: "Carsten Olsen (1891–1974) was a Danish plant ecologist who assisted Søren Sørensen, the chemist who introduced pH.", URL: "https://en.wikipedia.org/wiki/Carsten_Olsen"},
	{Title: "pH - Wikipedia", Text: "The concept of pH was introduced by the Danish chemist Søren Peder Lauritz Sørensen in 1909.", URL: "https://en.wikipedia.org/wiki/PH"},
}

func newWorld(t *testing.T, r fakellm.Responder, opts ...fakellm.Option) *world {
	t.Helper()
	w := &world{t: t, home: t.TempDir()}
	w.llm = fakellm.New(t, r, opts...)
	w.search = fakesearch.New(fakesearch.Options{Docs: webDocs})
	t.Cleanup(w.search.Close)
	w.docs = filepath.Join(w.home, "docs")
	os.MkdirAll(w.docs, 0o755)
	w.write("sorensen.md", "# S. P. L. Sørensen\n\nSøren Peder Lauritz Sørensen (1868–1939) was a Danish chemist, famous for the introduction of the concept of pH, a scale for measuring acidity and alkalinity.\n")
	w.write("carlsberg.txt", "The Carlsberg Laboratory in Copenhagen was founded in 1875. Its chemistry department was led by Johan Kjeldahl and later by Sørensen.\n")
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	w.addConfig(chosenWeb)
	return w
}

// chosenWeb is the config line of a user who chose to let the judge send
// queries to the web (until a policy is chosen it is "ask").
const chosenWeb = "web = \"auto\"\n"

// configFile is the world's config file.
func (w *world) configFile() string {
	return filepath.Join(w.home, "config", "prefrag", "config.toml")
}

// addConfig appends lines to the world's config file.
func (w *world) addConfig(text string) {
	w.t.Helper()
	os.MkdirAll(filepath.Dir(w.configFile()), 0o755)
	f, err := os.OpenFile(w.configFile(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(text)
		f.Close()
	}
	if err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) write(name, text string) {
	if err := os.WriteFile(filepath.Join(w.docs, name), []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"PREFRAG_HOME=" + filepath.Join(w.home, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, "config"),
		"NO_COLOR=1",
	}
}

// askArgs are the flags that point ask at the fakes.
func (w *world) askArgs(extra ...string) []string {
	return append([]string{"ask", "--llm-url", w.llm.URL(), "--model", "fake-model",
		"--web-engine", "searxng", "--searxng-url", w.search.URL()}, extra...)
}

func (w *world) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = w.env()
	return cmd
}

func (w *world) run(args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := w.command(ctx, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code == 0 {
		w.t.Fatalf("%v: %v", args, err)
	}
	return o.String(), e.String(), code
}

func parseEvents(t *testing.T, out string) []engine.Event {
	t.Helper()
	var evs []engine.Event
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev engine.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON event line: %q: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func types(evs []engine.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type())
	}
	return out
}

// payloadsOf returns the payloads of type P among evs, in order.
func payloadsOf[P engine.Payload](evs []engine.Event) []P {
	var out []P
	for _, e := range evs {
		if p, ok := e.Payload.(P); ok {
			out = append(out, p)
		}
	}
	return out
}

func ofType(evs []engine.Event, typ string) []engine.Event {
	var out []engine.Event
	for _, e := range evs {
		if e.Type() == typ {
			out = append(out, e)
		}
	}
	return out
}
