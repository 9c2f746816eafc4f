package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunServesUntilStdinCloses(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	record := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(script, []byte(`{"steps":["Final Answer: 42"],"chunk_delay_ms":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run([]string{"--script", script, "--record", record, "--max-lifetime", "1m"}, stdinR, stdoutW)
		stdoutW.Close()
	}()
	url, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not the URL", url)
	}
	res, err := http.Post(url+"/api/chat", "application/json",
		strings.NewReader(`{"model":"fake-model","stream":false,"messages":[{"role":"user","content":"q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Message struct{ Content string }
	}
	err = json.NewDecoder(res.Body).Decode(&answer)
	res.Body.Close()
	if err != nil || answer.Message.Content != "Final Answer: 42" {
		t.Fatalf("answer %+v, %v", answer, err)
	}

	stdinW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop when stdin closed")
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(data))), &rec); err != nil ||
		rec["endpoint"] != "/api/chat" || rec["prompt"] != "q" || rec["body"].(map[string]any)["model"] != "fake-model" {
		t.Errorf("record %s: %v", data, err)
	}
}

func TestRunStopsAfterMaxLifetime(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	err := run([]string{"--no-stdin", "--max-lifetime", "50ms"}, stdinR, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"--port", "70000"},
		{"--max-lifetime", "0s"},
		{"--script", "/nonexistent/script.json"},
		{"extra"},
	} {
		if err := run(args, strings.NewReader(""), io.Discard); err == nil {
			t.Errorf("run(%q) accepted", args)
		}
	}
}

// `fakellm -h` documents the flags and the script format, on stdout, exit 0.
func TestHelpDocumentsTheScript(t *testing.T) {
	var out strings.Builder
	if err := run([]string{"-h"}, strings.NewReader(""), &out); err != nil {
		t.Fatalf("-h: %v", err)
	}
	for _, want := range []string{"--script", "--max-lifetime", "steps", "judges", "rules", "contains", "die_after", "chunk_delay_ms", "Example:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("fakellm -h does not mention %q:\n%s", want, out.String())
		}
	}
}
