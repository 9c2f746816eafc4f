package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const docsJSONL = `{"title":"Caffeine","text":"Caffeine delays sleep.","url":"https://sleep.example.org/caffeine"}
{"title":"Tea","text":"Tea contains caffeine too."}
`

func writeDocs(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "docs.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// searxURLs asks base for q and returns the result URLs.
func searxURLs(t *testing.T, base, q string) []string {
	t.Helper()
	resp, err := http.Get(base + "/search?format=json&q=" + q)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Results []struct{ URL string } `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, r := range ans.Results {
		urls = append(urls, r.URL)
	}
	return urls
}

func TestRunServesUntilStdinCloses(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	var stderr bytes.Buffer
	status := make(chan int, 1)
	go func() {
		status <- run([]string{"-docs", writeDocs(t, docsJSONL)}, stdinR, stdoutW, &stderr)
		stdoutW.Close()
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v (stderr %s)", err, stderr.String())
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not a 127.0.0.1 URL", line)
	}
	urls := searxURLs(t, base, "caffeine")
	if len(urls) != 2 || urls[0] != "https://sleep.example.org/caffeine" || urls[1] != base+"/doc/1" {
		t.Errorf("results %v", urls)
	}
	stdinW.Close()
	select {
	case s := <-status:
		if s != 0 {
			t.Errorf("exit status %d", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running after stdin closed")
	}
}

func TestRunExitsAfterMaxLifetime(t *testing.T) {
	stdinR, stdinW := io.Pipe() // never closed before the end
	defer stdinW.Close()
	var stdout, stderr bytes.Buffer
	if s := run([]string{"-max-lifetime", "50ms"}, stdinR, &stdout, &stderr); s != 0 {
		t.Errorf("exit status %d: %s", s, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "http://127.0.0.1:") || !strings.Contains(stderr.String(), "max-lifetime") {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
}

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"unknown mode", []string{"-mode", "sideways"}, 2, "unknown mode"},
		{"stray argument", []string{"extra"}, 2, "unexpected argument"},
		{"unknown flag", []string{"-nope"}, 2, "nope"},
		{"bad port", []string{"-port", "70000"}, 2, "-port"},
		{"missing docs", []string{"-docs", filepath.Join(t.TempDir(), "absent.jsonl")}, 1, "absent.jsonl"},
		{"bad docs", []string{"-docs", writeDocs(t, "{\"title\":\"ok\"}\n{oops\n")}, 1, "line 2"},
		{"missing page", []string{"-ddg-page", filepath.Join(t.TempDir(), "absent.html")}, 1, "absent.html"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		s := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if s != tt.status || !strings.Contains(stderr.String(), tt.stderr) || stdout.Len() != 0 {
			t.Errorf("%s: status %d stderr %q stdout %q; want %d and %q", tt.name, s, stderr.String(), stdout.String(), tt.status, tt.stderr)
		}
	}
}

// TestBinary builds the command and drives it as other end-to-end tests
// will: first stdout line, a mode switch over HTTP, exit on stdin close.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "fakesearch")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-docs", writeDocs(t, docsJSONL), "-max-lifetime", "1m")
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
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(line)
	if urls := searxURLs(t, base, "tea"); len(urls) != 1 {
		t.Errorf("results %v", urls)
	}
	resp, err := http.Get(base + "/_fakesearch/mode?set=blocked-429")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(base + "/search?format=json&q=tea")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("after the mode switch: status %d", resp.StatusCode)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running after stdin closed")
	}
}
