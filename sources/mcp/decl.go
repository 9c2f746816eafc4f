// Package mcp makes the MCP servers a user declares into prefrag sources:
// it reads the declarations every MCP client writes (Claude Desktop's and
// Cursor's mcpServers, VS Code's servers, crush's mcp), connects with the
// official Go SDK over stdio, streamable HTTP or SSE, picks the server's
// search tool, turns its results into passages and keeps one connection
// per server for a run. A server that fails is a reason, never a crash.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/sources"
)

// Transports a declaration may name.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// DefaultTimeout bounds one call to a server (connecting included) when
// its declaration names none.
const DefaultTimeout = 30 * time.Second

// ErrDeclaration is matched by every error in a declarations file.
var ErrDeclaration = errors.New("MCP server declarations")

// Server is one declared MCP server.
type Server struct {
	// Name is the declaration's key: the source is "mcp:<Name>".
	Name string
	// Transport is stdio, http (streamable HTTP) or sse.
	Transport string
	Command   string
	Args      []string
	// Env and Headers are secrets: never printed, logged or stored.
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Tool and QueryArg override the choice of the search tool and of its
	// query argument ("" to choose).
	Tool, QueryArg string
	// Local marks an http or sse server as not leaving the machine (a
	// loopback server the user runs).
	Local   bool
	Timeout time.Duration
	// Problem says why the declaration cannot be used ("" when it can).
	Problem string
}

// Kind is the server's kind in sources' table: a stdio server (or one
// declared local) stays on the machine, an http or sse one leaves it.
func (s Server) Kind() sources.Kind {
	if s.Transport == TransportStdio || s.Local {
		return sources.KindMCP
	}
	return sources.KindMCPRemote
}

// SourceName is the server's source name, "mcp:<Name>".
func (s Server) SourceName() string { return sources.MCPName(s.Name).String() }

// Where says what the server is without a secret: the command and its
// arguments, or the URL without credentials or query.
func (s Server) Where() string {
	if s.Transport == TransportStdio {
		return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
	}
	return RedactURL(s.URL)
}

// Secrets are the values that must never be shown: every env and header
// value, and the URL's credentials and query values.
func (s Server) Secrets() []string {
	var out []string
	for _, v := range s.Env {
		out = append(out, v)
	}
	for _, v := range s.Headers {
		out = append(out, v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			out = append(out, tok)
		}
	}
	if u, err := url.Parse(s.URL); err == nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
		for _, vs := range u.Query() {
			out = append(out, vs...)
		}
	}
	kept := out[:0]
	for _, v := range out {
		if len(v) >= 4 {
			kept = append(kept, v)
		}
	}
	return kept
}

// RedactURL is a URL without its user information and query values.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an address that does not parse)"
	}
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q.Set(k, "…")
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// declaration is one server as the files write it. Every client's keys
// are read; unknown keys (VS Code's envFile, crush's disabled_tools) are
// ignored.
type declaration struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
	Tool     string            `json:"tool"`
	QueryArg string            `json:"query_arg"`
	Local    bool              `json:"local"`
	Timeout  json.RawMessage   `json:"timeout"`
}

// serverKeys are the top-level keys that hold servers: Claude Desktop and
// Cursor, VS Code, crush.
var serverKeys = []string{"mcpServers", "servers", "mcp"}

// Parse reads a declarations file. A file that is not JSON, or holds none
// of the keys, is an error; a server whose declaration cannot be used is
// returned with its Problem set. getenv expands ${NAME} and ${env:NAME}
// in commands, arguments, env, URLs and headers.
func Parse(data []byte, getenv func(string) (string, bool)) ([]Server, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrDeclaration, jsonProblem(data, err))
	}
	var out []Server
	seen := map[string]bool{}
	found := false
	for _, key := range serverKeys {
		raw, ok := top[key]
		if !ok {
			continue
		}
		found = true
		var decls map[string]json.RawMessage
		if err := json.Unmarshal(raw, &decls); err != nil {
			return nil, fmt.Errorf("%w: %q must be an object of servers by name", ErrDeclaration, key)
		}
		for _, name := range keysInOrder(raw) {
			if seen[name] {
				return nil, fmt.Errorf("%w: the server %q is declared twice", ErrDeclaration, name)
			}
			seen[name] = true
			var d declaration
			if err := json.Unmarshal(decls[name], &d); err != nil {
				out = append(out, Server{Name: name, Problem: "its declaration is not an object of the usual keys (command, args, env, url, headers, type)"})
				continue
			}
			if d.Disabled {
				continue
			}
			out = append(out, d.server(name, getenv))
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: no %q, %q or %q object of servers", ErrDeclaration, serverKeys[0], serverKeys[1], serverKeys[2])
	}
	return out, nil
}

// keysInOrder are an object's keys as the file writes them: the order of
// the declarations is the servers' default preference order.
func keysInOrder(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
		keys = append(keys, key)
	}
	return keys
}

var validName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// server checks one declaration and fills in what is missing.
func (d declaration) server(name string, getenv func(string) (string, bool)) Server {
	s := Server{Name: name, Command: d.Command, Args: d.Args, URL: d.URL, Tool: d.Tool, QueryArg: d.QueryArg, Local: d.Local, Timeout: DefaultTimeout}
	x := expander{getenv: getenv}
	s.Command = x.expand(s.Command)
	s.Args = x.expandAll(s.Args)
	s.URL = x.expand(s.URL)
	s.Env = x.expandMap(d.Env)
	s.Headers = x.expandMap(d.Headers)
	problem := func(p string) Server { s.Problem = p; return s }
	if !validName().MatchString(name) || len(name) > 64 {
		return problem("its name must be letters, digits, '.', '_' or '-' (at most 64), to be named mcp:NAME")
	}
	t, ok := transportOf(d.Type, s.URL, s.Command)
	if !ok {
		return problem(fmt.Sprintf("its type %q is not stdio, http or sse", d.Type))
	}
	s.Transport = t
	if d.Timeout != nil {
		to, err := parseTimeout(d.Timeout)
		if err != nil {
			return problem(err.Error())
		}
		s.Timeout = to
	}
	switch {
	case t == TransportStdio && s.Command == "":
		return problem("it has no command to start")
	case t != TransportStdio && s.URL == "":
		return problem("it has no url")
	case t != TransportStdio:
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return problem("its url is not an http:// or https:// address")
		}
	}
	if len(x.missing) > 0 {
		return problem("it uses " + strings.Join(x.missing, ", ") + ", which is not set in the environment")
	}
	return s
}

// transportOf is the declared type, or the one a url (http; sse when the
// path ends in /sse) or a command (stdio) implies.
func transportOf(typ, u, command string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "stdio", "local":
		return TransportStdio, true
	case "http", "streamable-http", "streamablehttp", "streamable_http", "remote":
		return TransportHTTP, true
	case "sse":
		return TransportSSE, true
	case "":
		if u == "" || command != "" {
			return TransportStdio, true
		}
		if p, err := url.Parse(u); err == nil && strings.HasSuffix(strings.TrimRight(p.Path, "/"), "/sse") {
			return TransportSSE, true
		}
		return TransportHTTP, true
	}
	return "", false
}

// parseTimeout reads seconds (crush writes a number) or a Go duration.
func parseTimeout(raw json.RawMessage) (time.Duration, error) {
	var secs float64
	if err := json.Unmarshal(raw, &secs); err == nil {
		if secs <= 0 || secs > 3600 {
			return 0, fmt.Errorf("its timeout %v must be between 0 and 3600 seconds", secs)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("its timeout must be seconds or a duration such as \"30s\"")
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > time.Hour {
		return 0, fmt.Errorf("its timeout %q must be a duration such as \"30s\", at most 1h", s)
	}
	return d, nil
}

// expander replaces ${NAME} and ${env:NAME} with the environment's value,
// noting the variables that are not set.
type expander struct {
	getenv  func(string) (string, bool)
	missing []string
}

var varRef = lazyre.New(`\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}`)

func (x *expander) expand(s string) string {
	if x.getenv == nil || !strings.Contains(s, "${") {
		return s
	}
	return varRef().ReplaceAllStringFunc(s, func(m string) string {
		name := varRef().FindStringSubmatch(m)[1]
		v, ok := x.getenv(name)
		if !ok {
			x.missing = appendOnce(x.missing, "$"+name)
		}
		return v
	})
}

func (x *expander) expandAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = x.expand(s)
	}
	return out
}

func (x *expander) expandMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x.expand(v)
	}
	return out
}

func appendOnce(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// jsonProblem says where a JSON file breaks: "line 3: invalid character …".
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line := 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))
		return "line " + strconv.Itoa(line) + ": " + syn.Error()
	}
	return "not a JSON object: " + err.Error()
}

// Load reads the declarations at path; a missing file is no servers when
// optional.
func Load(path string, optional bool, getenv func(string) (string, bool)) ([]Server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: cannot read %s: %v", ErrDeclaration, path, errors.Unwrap(err))
	}
	list, err := Parse(data, getenv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list, nil
}
