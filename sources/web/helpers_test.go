package web

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
	"github.com/prefrag/prefrag/sources"
)

// findSharedData walks up from the package folder to the first
// shared/data/<rel> it finds.
func findSharedData(rel string) (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, "shared", "data", rel)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// sharedData is findSharedData that skips the test when the data is
// absent (a user's machine has no ../shared).
func sharedData(t testing.TB, rel string) string {
	t.Helper()
	p, ok := findSharedData(rel)
	if !ok {
		t.Skipf("shared/data/%s not found above the package folder; skipping", rel)
	}
	return p
}

// fixture reads a file of shared/data/web-fixtures.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(sharedData(t, filepath.Join("web-fixtures", name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readOptionalFixture reads a fixture for fuzz seeds, failing softly.
func readOptionalFixture(name string) ([]byte, error) {
	p, ok := findSharedData(filepath.Join("web-fixtures", name))
	if !ok {
		return nil, os.ErrNotExist
	}
	return os.ReadFile(p)
}

// exchange is one recorded HTTP request and its answer.
type exchange struct {
	req  *http.Request
	resp *http.Response
	body []byte
}

// readHTTPRR reads an httprr trace: a "httprr trace v1" line, then for
// each exchange a "<request bytes> <response bytes>" line followed by the
// raw request and the raw response.
func readHTTPRR(t testing.TB, data []byte) []exchange {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(data))
	head, err := r.ReadString('\n')
	if err != nil || head != "httprr trace v1\n" {
		t.Fatalf("not an httprr trace: %q", head)
	}
	var out []exchange
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return out
		}
		var nreq, nresp int
		if _, err := fmt.Sscanf(line, "%d %d\n", &nreq, &nresp); err != nil {
			t.Fatalf("bad record header %q: %v", line, err)
		}
		rawReq := make([]byte, nreq)
		rawResp := make([]byte, nresp)
		if _, err := io.ReadFull(r, rawReq); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(r, rawResp); err != nil {
			t.Fatal(err)
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rawReq)))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rawResp)), req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, exchange{req: req, resp: resp, body: body})
	}
}

// fakeClock advances only when someone sleeps on it, and records every
// wake-up time asked for.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	wakeUp []time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) SleepUntil(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.wakeUp = append(c.wakeUp, t)
		c.now = t
	}
	return ctx.Err()
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) WakeUps() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.wakeUp)
}

// testDocs are the fake server's documents in most tests.
var testDocs = []fakesearch.Doc{
	{Title: "Go (programming language)", Text: "Go is a statically typed, compiled programming language designed at Google.", URL: "https://en.wikipedia.org/wiki/Go_(programming_language)"},
	{Title: "The Go Programming Language", Text: "Go is an open source programming language that makes it simple to build secure, scalable systems.", URL: "https://go.dev/"},
	{Title: "Rust (programming language)", Text: "Rust is a general-purpose programming language emphasizing performance and memory safety.", URL: "https://en.wikipedia.org/wiki/Rust_(programming_language)"},
	{Title: "Gopher", Text: "Gophers are small burrowing rodents.", URL: "https://animals.example.org/gopher"},
}

// testConfig is a quick configuration for tests: its own guard on a fake
// clock, no spacing, short timeouts and backoff.
func testConfig(clock *fakeClock) Config {
	return Config{
		Timeout:     2 * time.Second,
		Backoff:     10 * time.Millisecond,
		MinInterval: -1,
		Guard:       NewHostGuard(clock),
	}
}

func mustNew(t testing.TB, engine string, cfg Config) *Engine {
	t.Helper()
	e, err := New(engine, cfg)
	if err != nil {
		t.Fatalf("New(%q): %v", engine, err)
	}
	return e
}

func docURLs(docs []sources.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.URL
	}
	return out
}
