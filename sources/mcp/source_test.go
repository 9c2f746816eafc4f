package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/mcpfake"
	"github.com/prefrag/prefrag/sources"
)

// fakeBin is the built cmd/mcpfake.
var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "prefrag-mcp-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin = filepath.Join(dir, "mcpfake")
	build := exec.Command("go", "build", "-o", fakeBin, "github.com/prefrag/prefrag/internal/testdouble/mcpfake/cmd/mcpfake")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mcpfake:", err)
		os.Exit(1)
	}
	stopGrace = 200 * time.Millisecond
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeServer declares the fake over stdio in a mode, counting its starts.
func fakeServer(t *testing.T, mode string, timeout time.Duration) (Server, string) {
	t.Helper()
	starts := filepath.Join(t.TempDir(), "starts")
	return Server{Name: "kb", Transport: TransportStdio, Command: fakeBin, Args: []string{"-mode", mode, "-starts", starts},
		Timeout: timeout}, starts
}

func startsOf(t *testing.T, file string) []int {
	t.Helper()
	b, _ := os.ReadFile(file)
	var pids []int
	for _, l := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(l)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, n)
	}
	return pids
}

// running reports whether pid is a live process (a zombie is not).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// waitGone waits for pid to end (a process killed is not gone at once).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A stdio server answers searches as passages; the connection is made
// once and kept across searches, and Close ends the process.
func TestStdioSearchReusesAndReaps(t *testing.T) {
	srv, starts := fakeServer(t, mcpfake.ModeOK, 10*time.Second)
	s := New(srv, nil)
	for _, q := range []string{"who leads Heron", "billing pipeline"} {
		docs, err := s.Search(context.Background(), q, 5)
		if err != nil || len(docs) == 0 {
			t.Fatalf("%q: %v, %v", q, docs, err)
		}
		d := docs[0]
		if d.Source != "mcp:kb" || !strings.HasPrefix(d.ID, "kb/") && d.ID != d.URL || d.Title == "" || d.Text == "" {
			t.Errorf("document %+v", d)
		}
	}
	pids := startsOf(t, starts)
	if len(pids) != 1 {
		t.Fatalf("%d starts for two searches, want 1", len(pids))
	}
	if !running(pids[0]) {
		t.Fatal("the server is gone before Close")
	}
	s.Close()
	waitGone(t, pids[0])
}

// The texts a server returns are untrusted: escapes go, and the protocol
// labels stay text (the engine neutralises them in prompts).
func TestTextIsMadeSafe(t *testing.T) {
	docsFile := filepath.Join(t.TempDir(), "docs.json")
	os.WriteFile(docsFile, []byte(`[{"id":"x","title":"Evil\u001b]0;owned\u0007 title\nsecond line","text":"clear \u001b[2J screen"}]`), 0o644)
	srv := Server{Name: "kb", Transport: TransportStdio, Command: fakeBin, Args: []string{"-docs", docsFile}, Timeout: 10 * time.Second}
	s := New(srv, nil)
	defer s.Close()
	docs, err := s.Search(context.Background(), "screen", 5)
	if err != nil || len(docs) != 1 {
		t.Fatal(docs, err)
	}
	if strings.ContainsAny(docs[0].Title+docs[0].Text, "\x1b\x07\n") {
		t.Errorf("control characters or a second title line kept: %+v", docs[0])
	}
}

func TestFetchFillsBareResults(t *testing.T) {
	srv, _ := fakeServer(t, mcpfake.ModeFetch, 10*time.Second)
	s := New(srv, nil)
	defer s.Close()
	docs, err := s.Search(context.Background(), "Heron", 5)
	if err != nil || len(docs) != 1 || !strings.Contains(docs[0].Text, "led by Ada Varga") || docs[0].Title != "Heron project charter" {
		t.Fatalf("%+v, %v", docs, err)
	}
}

func TestJSONInTextContent(t *testing.T) {
	srv, _ := fakeServer(t, mcpfake.ModeText, 10*time.Second)
	s := New(srv, nil)
	defer s.Close()
	docs, err := s.Search(context.Background(), "Heron", 5)
	if err != nil || len(docs) != 1 || docs[0].URL != "https://wiki.example/heron" {
		t.Fatalf("%+v, %v", docs, err)
	}
}

// Each fault of a bad server is a one-line reason matching
// sources.ErrUnavailable, never a crash, and no process is left behind.
func TestFaults(t *testing.T) {
	cases := []struct {
		mode, reason string
		starts       int // after two searches: 1 when the server is down for the run or kept
	}{
		{"nostart", "cannot open the index", 1},
		{mcpfake.ModeExit, "exited", 2},
		{mcpfake.ModeHang, "did not answer within 500ms", 1},
		{mcpfake.ModeError, "answered with an error: the index is offline", 1},
		{mcpfake.ModeNotJSON, "not JSON-RPC", 2},
		{mcpfake.ModeNoSearch, "no search tool (its tools: create_note)", 1},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			srv, starts := fakeServer(t, c.mode, 500*time.Millisecond)
			s := New(srv, nil)
			_, err := s.Search(context.Background(), "Heron", 5)
			if !errors.Is(err, sources.ErrUnavailable) || !strings.Contains(err.Error(), c.reason) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v; want ErrUnavailable on one line with %q", err, c.reason)
			}
			_, err2 := s.Search(context.Background(), "Heron", 5)
			if err2 == nil {
				t.Fatal("the second search succeeded")
			}
			if n := len(startsOf(t, starts)); n != c.starts {
				t.Errorf("%d starts after two searches, want %d", n, c.starts)
			}
			s.Close()
			for _, pid := range startsOf(t, starts) {
				waitGone(t, pid)
			}
		})
	}
}

// Megabytes of text are cut to MaxResultChars, the search marked partial
// with the passages kept.
func TestHugeAnswerIsCut(t *testing.T) {
	srv, _ := fakeServer(t, mcpfake.ModeHuge, 10*time.Second)
	s := New(srv, nil)
	defer s.Close()
	docs, err := s.Search(context.Background(), "anything", 5)
	var te *sources.TruncatedError
	if !errors.As(err, &te) || len(docs) == 0 || te.Results != len(docs) {
		t.Fatalf("%d docs, %v; want partial results and a TruncatedError", len(docs), err)
	}
	total := 0
	for _, d := range docs {
		total += len(d.Text)
	}
	if total > MaxResultChars {
		t.Errorf("%d characters kept, more than %d", total, MaxResultChars)
	}
	if !strings.Contains(err.Error(), "of text") {
		t.Errorf("message %q", err)
	}
}

// A server that starts a child of its own leaves none behind at Close.
func TestNoOrphans(t *testing.T) {
	dir := t.TempDir()
	childPID := filepath.Join(dir, "child")
	srv, starts := fakeServer(t, mcpfake.ModeSpawn, 10*time.Second)
	srv.Args = append(srv.Args, "-child-pid", childPID)
	s := New(srv, nil)
	if _, err := s.Search(context.Background(), "Heron", 5); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(childPID)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(b))
	if !running(child) {
		t.Fatal("the child is not running")
	}
	s.Close()
	waitGone(t, startsOf(t, starts)[0])
	waitGone(t, child)
}

// Over streamable HTTP: the declared headers are sent, the same search
// works, and a failure names no secret.
func TestHTTP(t *testing.T) {
	var auth []string
	rec := &mcpfake.Recorder{}
	h := mcpfake.Handler(mcpfake.Options{Log: rec.Log})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	srv := Server{Name: "wiki", Transport: TransportHTTP, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer tok-secret-1"}, Timeout: 10 * time.Second}
	s := New(srv, nil)
	docs, err := s.Search(context.Background(), "Heron", 5)
	s.Close()
	if err != nil || len(docs) != 1 || docs[0].Source != "mcp:wiki" {
		t.Fatalf("%+v, %v", docs, err)
	}
	if s.Kind() != sources.KindMCPRemote {
		t.Errorf("kind %v", s.Kind())
	}
	if len(auth) == 0 || auth[0] != "Bearer tok-secret-1" {
		t.Errorf("Authorization %v", auth)
	}
	if q := rec.Queries(); len(q) != 1 || q[0] != "Heron" {
		t.Errorf("queries %v", q)
	}

	ts.Close()
	srv.URL = ts.URL + "/?token=tok-secret-1"
	_, err = New(srv, nil).Search(context.Background(), "Heron", 5)
	if !errors.Is(err, sources.ErrUnavailable) || strings.Contains(err.Error(), "tok-secret-1") {
		t.Errorf("error %v: want unavailable, with no secret", err)
	}
}

// Over the older SSE transport the same search works.
func TestSSE(t *testing.T) {
	ts := httptest.NewServer(mcpfake.SSEHandler(mcpfake.Options{}))
	defer ts.Close()
	s := New(Server{Name: "old", Transport: TransportSSE, URL: ts.URL + "/sse", Timeout: 10 * time.Second}, nil)
	defer s.Close()
	docs, err := s.Search(context.Background(), "Heron", 5)
	if err != nil || len(docs) != 1 || docs[0].Source != "mcp:old" {
		t.Fatalf("%+v, %v", docs, err)
	}
}

// A process that never answers the handshake is given up at the timeout,
// and stopped.
func TestHandshakeTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := New(Server{Name: "mute", Transport: TransportStdio, Command: "sh", Args: []string{"-c", "echo $$ > " + pidFile + "; exec sleep 30"}, Timeout: 300 * time.Millisecond}, nil)
	_, err := s.Search(context.Background(), "q", 5)
	if !errors.Is(err, sources.ErrUnavailable) || !strings.Contains(err.Error(), "did not answer within 300ms") {
		t.Fatalf("error %v", err)
	}
	s.Close()
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid == 0 {
		t.Fatal("no pid written")
	}
	waitGone(t, pid)
}

// An http server that cannot be reached is said in one sentence naming
// its host and the network's reason, not the SDK's chain of wrappers.
func TestUnreachableHTTPServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, tr := range []string{TransportHTTP, TransportSSE} {
		s := New(Server{Name: "gone", Transport: tr, URL: "http://" + addr + "/mcp", Timeout: 5 * time.Second}, nil)
		_, err := s.Search(context.Background(), "q", 5)
		s.Close()
		msg := fmt.Sprint(err)
		if !errors.Is(err, sources.ErrUnavailable) || !strings.Contains(msg, "cannot reach "+addr+" (connect: connection refused)") ||
			strings.Contains(msg, "dial tcp") || strings.Contains(msg, `"initialize"`) {
			t.Errorf("%s: %q", tr, msg)
		}
	}
}
