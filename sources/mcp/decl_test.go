package mcp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/sources"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// Each client's file shape is read as it is written.
func TestParseShapes(t *testing.T) {
	cases := []struct {
		name, file string
		want       []Server
	}{
		{"Claude Desktop", `{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/tmp/m.jsonl"}}}}`,
			[]Server{{Name: "memory", Transport: TransportStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}}}},
		{"Cursor remote", `{"mcpServers": {"wiki": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer s3cret-token"}}}}`,
			[]Server{{Name: "wiki", Transport: TransportHTTP, URL: "https://mcp.example/mcp"}}},
		{"sse inferred from the path", `{"mcpServers": {"old": {"url": "http://127.0.0.1:8931/sse"}}}`,
			[]Server{{Name: "old", Transport: TransportSSE, URL: "http://127.0.0.1:8931/sse"}}},
		{"VS Code", `{"inputs": [], "servers": {"gh": {"type": "http", "url": "https://api.example/mcp/"}, "fs": {"type": "stdio", "command": "node", "args": ["fs.js"]}}}`,
			[]Server{{Name: "gh", Transport: TransportHTTP, URL: "https://api.example/mcp/"}, {Name: "fs", Transport: TransportStdio, Command: "node", Args: []string{"fs.js"}}}},
		{"the file's order", `{"mcpServers": {"zeta": {"command": "z"}, "alpha": {"command": "a"}, "mid": {"command": "m"}}}`,
			[]Server{{Name: "zeta", Transport: TransportStdio, Command: "z"}, {Name: "alpha", Transport: TransportStdio, Command: "a"}, {Name: "mid", Transport: TransportStdio, Command: "m"}}},
		{"crush, timeout in seconds, disabled skipped", `{"mcp": {"kb": {"type": "stdio", "command": "kb-mcp", "timeout": 5}, "off": {"command": "x", "disabled": true}}}`,
			[]Server{{Name: "kb", Transport: TransportStdio, Command: "kb-mcp", Timeout: 5 * time.Second}}},
		{"prefrag's own keys", `{"mcpServers": {"intra": {"type": "streamable-http", "url": "http://127.0.0.1:7000/mcp", "local": true, "tool": "find", "query_arg": "q", "timeout": "2s"}}}`,
			[]Server{{Name: "intra", Transport: TransportHTTP, URL: "http://127.0.0.1:7000/mcp", Local: true, Tool: "find", QueryArg: "q", Timeout: 2 * time.Second}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse([]byte(c.file), env(nil))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d servers, want %d: %+v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				g := got[i]
				if w.Timeout == 0 {
					w.Timeout = DefaultTimeout
				}
				if g.Problem != "" || g.Name != w.Name || g.Transport != w.Transport || g.Command != w.Command || strings.Join(g.Args, " ") != strings.Join(w.Args, " ") ||
					g.URL != w.URL || g.Local != w.Local || g.Tool != w.Tool || g.QueryArg != w.QueryArg || g.Timeout != w.Timeout {
					t.Errorf("server %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// A stdio server stays on the machine; an http one leaves it unless it
// is declared local.
func TestServerKind(t *testing.T) {
	for _, c := range []struct {
		s    Server
		want sources.Kind
	}{
		{Server{Transport: TransportStdio}, sources.KindMCP},
		{Server{Transport: TransportHTTP}, sources.KindMCPRemote},
		{Server{Transport: TransportSSE}, sources.KindMCPRemote},
		{Server{Transport: TransportHTTP, Local: true}, sources.KindMCP},
	} {
		if got := c.s.Kind(); got != c.want {
			t.Errorf("%+v: kind %v, want %v", c.s, got, c.want)
		}
	}
}

func TestParseProblems(t *testing.T) {
	cases := []struct{ file, problem string }{
		{`{"mcpServers": {"a": {"args": ["x"]}}}`, "no command"},
		{`{"mcpServers": {"a": {"type": "http"}}}`, "no url"},
		{`{"mcpServers": {"a": {"type": "carrier-pigeon", "command": "x"}}}`, `type "carrier-pigeon"`},
		{`{"mcpServers": {"a b": {"command": "x"}}}`, "its name must be"},
		{`{"mcpServers": {"a": {"url": "ftp://x/mcp"}}}`, "not an http"},
		{`{"mcpServers": {"a": {"url": "https://x/mcp", "headers": {"Authorization": "Bearer ${env:KB_TOKEN}"}}}}`, "uses $KB_TOKEN, which is not set"},
		{`{"mcpServers": {"a": {"command": "x", "timeout": -1}}}`, "timeout"},
		{`{"mcpServers": {"a": "npx server"}}`, "not an object"},
	}
	for _, c := range cases {
		got, err := Parse([]byte(c.file), env(nil))
		if err != nil || len(got) != 1 || !strings.Contains(got[0].Problem, c.problem) {
			t.Errorf("%s: %+v, %v; want a problem with %q", c.file, got, err, c.problem)
		}
	}
}

func TestParseFileErrors(t *testing.T) {
	cases := []struct{ file, want string }{
		{"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", "line 3"},
		{`{"tools": {}}`, `no "mcpServers", "servers" or "mcp"`},
		{`{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y"}}}`, `"a" is declared twice`},
		{`{"mcpServers": ["a"]}`, "must be an object"},
		{`[]`, "not a JSON object"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.file), env(nil))
		if !errors.Is(err, ErrDeclaration) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want ErrDeclaration with %q", c.file, err, c.want)
		}
	}
}

// Variables are expanded, and what they hold is a secret: never in Where,
// always in Secrets.
func TestSecrets(t *testing.T) {
	file := `{"mcpServers": {
		"kb": {"url": "https://u:pw-1234@kb.example/mcp?key=qk-5678", "headers": {"Authorization": "Bearer ${env:KB_TOKEN}"}},
		"mem": {"command": "mem", "args": ["--dir", "${HOME}/m"], "env": {"API_KEY": "${KEY}"}}}}`
	got, err := Parse([]byte(file), env(map[string]string{"KB_TOKEN": "tok-abcdef", "HOME": "/home/ana", "KEY": "k-999999"}))
	if err != nil || len(got) != 2 {
		t.Fatal(got, err)
	}
	kb, mem := got[0], got[1]
	if kb.Headers["Authorization"] != "Bearer tok-abcdef" || mem.Args[1] != "/home/ana/m" || mem.Env["API_KEY"] != "k-999999" {
		t.Errorf("not expanded: %+v %+v", kb, mem)
	}
	for _, s := range []string{"pw-1234", "qk-5678", "tok-abcdef"} {
		if strings.Contains(kb.Where(), s) {
			t.Errorf("Where %q shows %q", kb.Where(), s)
		}
		if !contains(kb.Secrets(), s) {
			t.Errorf("Secrets %v lacks %q", kb.Secrets(), s)
		}
	}
	if !contains(mem.Secrets(), "k-999999") {
		t.Errorf("env value is not a secret: %v", mem.Secrets())
	}
}

// Parse reads files a user pastes: it never panics, and a server it
// returns without a problem can be connected to.
func FuzzParse(f *testing.F) {
	f.Add(`{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "x"], "env": {"A": "${B}"}}}}`)
	f.Add(`{"servers": {"gh": {"type": "sse", "url": "http://h/sse", "timeout": "3s"}}}`)
	f.Add(`{"mcp": {"k": {"url": "https://x/mcp", "timeout": 1e9}}}`)
	f.Fuzz(func(t *testing.T, file string) {
		list, err := Parse([]byte(file), env(map[string]string{"B": "b"}))
		if err != nil {
			return
		}
		for _, s := range list {
			if s.Problem != "" {
				continue
			}
			if s.Timeout <= 0 || s.Transport == TransportStdio && s.Command == "" {
				t.Errorf("usable server with no timeout or command: %+v", s)
			}
			if s.Transport != TransportStdio && s.URL == "" {
				t.Errorf("usable remote server with no url: %+v", s)
			}
		}
	})
}
