package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// TestHelperProcess is not a test: it is the other process of the
// multi-process tests, started as `<test binary> -test.run=TestHelperProcess`
// with PREFRAG_HELPER set. It opens the corpus, prints "ready <result>", and
// holds it until its standard input closes.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("PREFRAG_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	dir, name := os.Getenv("PREFRAG_DIR"), os.Getenv("PREFRAG_NAME")
	switch mode {
	case "search":
		c, err := OpenWith(dir, name, Options{IdleRelease: -1})
		if err != nil {
			fmt.Printf("error %v\n", err)
			os.Exit(1)
		}
		docs, err := c.Search(context.Background(), "lighthouse keeper", 3)
		if err != nil {
			fmt.Printf("error %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("ready %s\n", strings.Join(ids(docs), ","))
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = c.Close()
	case "write":
		w, err := OpenWriter(dir, name, WriterOptions{})
		if err != nil {
			fmt.Printf("error %v\n", err)
			os.Exit(1)
		}
		fmt.Println("ready writing")
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = w.Close()
	case "index":
		helperIndex(dir, name)
	}
	os.Exit(0)
}

type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	line  string
}

// startHelper runs the helper process and waits for its first line.
func startHelper(t *testing.T, mode, dir, name string) *helper {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "PREFRAG_HELPER="+mode, "PREFRAG_DIR="+dir, "PREFRAG_NAME="+name)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { h.stop(t) })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper %s: %v", mode, err)
	}
	h.line = strings.TrimSpace(line)
	if !strings.HasPrefix(h.line, "ready") {
		t.Fatalf("helper %s said %q", mode, h.line)
	}
	return h
}

func (h *helper) stop(t *testing.T) {
	if h.cmd.ProcessState != nil {
		return
	}
	_ = h.stdin.Close()
	if err := h.cmd.Wait(); err != nil {
		t.Errorf("helper exit: %v", err)
	}
}

func shortLockTimeouts(t *testing.T) {
	r, w := ReadLockTimeout, WriteLockTimeout
	ReadLockTimeout, WriteLockTimeout = 200*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { ReadLockTimeout, WriteLockTimeout = r, w })
}

func TestTwoProcessesSearchAtOnce(t *testing.T) {
	shortLockTimeouts(t)
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{
		"a.txt": "The lighthouse keeper climbed the stairs.",
		"b.txt": "A keeper of bees.",
	})
	mustIndex(t, dir, "shared", src)

	one := startHelper(t, "search", dir, "shared")
	two := startHelper(t, "search", dir, "shared")
	if one.line != two.line || !strings.Contains(one.line, "a.txt#1") {
		t.Fatalf("helpers found %q and %q", one.line, two.line)
	}
	// A third searcher, in this process, while both hold the corpus.
	c := mustOpen(t, dir, "shared")
	docs, err := c.Search(context.Background(), "lighthouse keeper", 3)
	if err != nil || len(docs) != 2 {
		t.Fatalf("in-process search: %v, %v", ids(docs), err)
	}
	c.Close()

	// Nobody may write while they search: a clear error, no hang.
	start := time.Now()
	_, err = Index(context.Background(), dir, "shared", []string{src}, IndexOptions{})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Index while searched: %v, want ErrBusy", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("busy error took %v", time.Since(start))
	}
	one.stop(t)
	two.stop(t)
	if _, err := Index(context.Background(), dir, "shared", []string{src}, IndexOptions{}); err != nil {
		t.Fatalf("Index after searchers left: %v", err)
	}
}

func TestSearchWhileAnotherProcessIndexes(t *testing.T) {
	shortLockTimeouts(t)
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "The lighthouse keeper."})
	mustIndex(t, dir, "busy", src)
	// Opened before the writer arrives; the idle handle is released.
	c, err := OpenWith(dir, "busy", Options{IdleRelease: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(50 * time.Millisecond)

	w := startHelper(t, "write", dir, "busy")
	_, err = c.Search(context.Background(), "keeper", 3)
	if !errors.Is(err, ErrBusy) || !errors.Is(err, sources.ErrUnavailable) {
		t.Fatalf("Search during indexing: %v, want ErrBusy and sources.ErrUnavailable", err)
	}
	if _, err := OpenWriter(dir, "busy", WriterOptions{}); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "another prefrag process") {
		t.Fatalf("second writer: %v", err)
	}
	if _, err := ReadStats(dir, "busy"); !errors.Is(err, ErrBusy) {
		t.Errorf("ReadStats during indexing = %v, want ErrBusy", err)
	}
	w.stop(t)
	docs, err := c.Search(context.Background(), "keeper", 3)
	if err != nil || len(docs) != 1 {
		t.Fatalf("Search after indexing: %v, %v", ids(docs), err)
	}
}

// TestConcurrentSearchesWithIdleRelease searches from many goroutines while
// the handle is released and reopened underneath (run with -race).
func TestConcurrentSearchesWithIdleRelease(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "The lighthouse keeper.", "b.txt": "A keeper of bees."})
	mustIndex(t, dir, "cc", src)
	c, err := OpenWith(dir, "cc", Options{IdleRelease: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 30; i++ {
				docs, err := c.Search(context.Background(), "keeper", 5)
				if err == nil && len(docs) != 2 {
					err = fmt.Errorf("got %d docs", len(docs))
				}
				if err != nil {
					errs <- err
					return
				}
				if i%10 == 0 {
					time.Sleep(2 * time.Millisecond)
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Search(context.Background(), "keeper", 5); !errors.Is(err, ErrClosed) {
		t.Errorf("Search after Close = %v", err)
	}
}
