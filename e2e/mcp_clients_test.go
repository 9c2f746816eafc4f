package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/internal/testdouble/npmtool"
)

// Real third-party clients against the real binary: the MCP Inspector's
// command-line client and the official conformance suite (both from the
// npm registry, pinned by npmtool; the tests skip, saying why, only when
// they cannot be installed).

// inspector runs the Inspector CLI with args and returns its stdout. It
// runs in the package's build folder: the CLI finds its own package.json
// relative to the working folder.
func inspector(t *testing.T, w *world, args ...string) string {
	t.Helper()
	bin, err := filepath.EvalSymlinks(npmtool.Bin(t, "mcp-inspector-cli"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{bin, "--cli"}, args...)...)
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = w.env()
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr.String())
	}
	return string(out)
}

// The Inspector CLI lists and calls prefrag's tools over stdio and HTTP.
func TestMCPInspectorCLI(t *testing.T) {
	w := newWorld(t, citedCaseStudy())
	// The CLI starts a stdio server with a minimal environment: the
	// world's folders are passed with -e.
	stdio := []string{"-e", "PREFRAG_HOME=" + filepath.Join(w.home, "data"), "-e", "XDG_CONFIG_HOME=" + filepath.Join(w.home, "config"), binary}
	stdio = append(stdio, w.mcpArgs()...)
	s := w.mcpHTTP()
	for name, target := range map[string][]string{"stdio": stdio, "http": {s.URL}} {
		t.Run(name, func(t *testing.T) {
			var listed struct {
				Tools []struct {
					Name         string          `json:"name"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			}
			out := inspector(t, w, append(target, "--method", "tools/list")...)
			if err := json.Unmarshal([]byte(out), &listed); err != nil {
				t.Fatalf("tools/list: %v\n%s", err, out)
			}
			var names []string
			for _, tool := range listed.Tools {
				names = append(names, tool.Name)
				if len(tool.InputSchema) == 0 || len(tool.OutputSchema) == 0 {
					t.Errorf("%s lacks a schema", tool.Name)
				}
			}
			sort.Strings(names)
			if strings.Join(names, " ") != "ask fetch search sessions" {
				t.Errorf("tools %v", names)
			}
			var called struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Results []struct{ ID, Title string } `json:"results"`
				} `json:"structuredContent"`
			}
			out = inspector(t, w, append(target, "--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=chemist pH")...)
			if err := json.Unmarshal([]byte(out), &called); err != nil {
				t.Fatalf("tools/call: %v\n%s", err, out)
			}
			if called.IsError || len(called.StructuredContent.Results) == 0 || called.StructuredContent.Results[0].Title != "S. P. L. Sørensen" {
				t.Errorf("search through the Inspector: %s", out)
			}
		})
	}
}

// conformanceScenarios are the official suite's server scenarios that
// apply to prefrag's server: they must pass, without warnings.
var conformanceScenarios = []string{
	"server-initialize", "ping", "tools-list", "dns-rebinding-protection",
	"logging-set-level",           // the SDK's server offers logging/setLevel
	"resources-list",              // the session resources (templates; the list is empty)
	"prompts-list",                // no prompts: an empty list
	"server-sse-multiple-streams", // several calls at once over HTTP
}

// notApplicable says why each other scenario does not apply: each drives
// a fixture tool, resource or prompt of the suite's reference server
// (test_simple_text, test://static-text, test_prompt_with_arguments, …)
// that a product server does not have, or a feature prefrag does not offer.
var notApplicable = map[string]string{
	"completion-complete":           "prefrag offers no completion (no prompts, no templated arguments to complete)",
	"tools-call-simple-text":        "fixture tool test_simple_text",
	"tools-call-image":              "fixture tool test_image_content",
	"tools-call-audio":              "fixture tool test_audio_content",
	"tools-call-embedded-resource":  "fixture tool test_embedded_resource",
	"tools-call-mixed-content":      "fixture tool test_multiple_content_types",
	"tools-call-with-logging":       "fixture tool test_tool_with_logging",
	"tools-call-error":              "fixture tool test_error_handling (prefrag's tool errors: TestToolErrors in mcpserve)",
	"tools-call-with-progress":      "fixture tool test_tool_with_progress (ask's progress: TestMCPToolsOverStdioAndHTTP)",
	"tools-call-sampling":           "fixture tool test_sampling; prefrag asks its own model, never the client's",
	"tools-call-elicitation":        "fixture tool test_elicitation; prefrag never asks the client's user",
	"elicitation-sep1034-defaults":  "fixture tool test_elicitation_sep1034_defaults",
	"elicitation-sep1330-enums":     "fixture tool test_elicitation_sep1330_enums",
	"json-schema-2020-12":           "fixture tool json_schema_2020_12_tool",
	"server-sse-polling":            "fixture tool test_reconnection (a stream the server closes mid-call)",
	"resources-read-text":           "fixture resource test://static-text",
	"resources-read-binary":         "fixture resource test://static-binary",
	"resources-templates-read":      "fixture template test://template/{id}/data",
	"resources-subscribe":           "prefrag offers no resource subscriptions",
	"resources-unsubscribe":         "prefrag offers no resource subscriptions",
	"prompts-get-simple":            "fixture prompt test_simple_prompt; prefrag offers no prompts",
	"prompts-get-with-args":         "fixture prompt test_prompt_with_arguments",
	"prompts-get-embedded-resource": "fixture prompt test_prompt_with_embedded_resource",
	"prompts-get-with-image":        "fixture prompt test_prompt_with_image",
}

// stampedDir is a result folder: server-<scenario>-<time>.
var stampedDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$`)

// The official conformance suite (needs Node.js 22) against prefrag mcp
// --http: every scenario is run; those that apply pass without warnings,
// and the others are listed with the reason they do not apply.
func TestMCPConformance(t *testing.T) {
	w := newWorld(t, citedCaseStudy())
	s := w.mcpHTTP()
	dir := t.TempDir()
	cmd := npmtool.NodeCommand(t, "conformance", "server", "--url", s.URL, "--suite", "all", "-o", dir)
	cmd.Env = append(w.env(), "NO_COLOR=1")
	out, _ := cmd.CombinedOutput() // exit 1: scenarios that do not apply fail
	results := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		m := stampedDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct{ ID, Status, ErrorMessage string }
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatal(err)
		}
		results[m[1]] = summarize(checks)
	}
	if len(results) == 0 {
		t.Fatalf("the suite wrote no results:\n%s", out)
	}
	for _, sc := range conformanceScenarios {
		if got := results[sc]; !strings.HasPrefix(got, "SUCCESS") {
			t.Errorf("scenario %s: %s", sc, got)
		}
	}
	names := make([]string, 0, len(results))
	for sc := range results {
		names = append(names, sc)
	}
	sort.Strings(names)
	for _, sc := range names {
		why, ok := notApplicable[sc]
		switch {
		case ok:
			t.Logf("%-30s %s — does not apply: %s", sc, results[sc], why)
		case !containsStr(conformanceScenarios, sc):
			t.Errorf("scenario %s (%s) is new: decide whether it applies", sc, results[sc])
		default:
			t.Logf("%-30s %s", sc, results[sc])
		}
	}
}

// summarize is a scenario's checks in one word and counts: SUCCESS (n
// checks), or the first failure or warning.
func summarize(checks []struct{ ID, Status, ErrorMessage string }) string {
	n := 0
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			n++
		case "FAILURE", "WARNING":
			return c.Status + " " + c.ID + ": " + c.ErrorMessage
		}
	}
	return fmt.Sprintf("SUCCESS (%d checks)", n)
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// BenchmarkMCPInitialize is the start-up of `prefrag mcp` with a warm
// corpus (indexed, in the page cache): from starting the process to the
// initialize reply, over stdio, as a client's command.
func BenchmarkMCPInitialize(b *testing.B) {
	home := b.TempDir()
	docs := filepath.Join(home, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "sorensen.md"), []byte("# S. P. L. Sørensen\n\nSøren Sørensen introduced pH.\n"), 0o644)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "PREFRAG_HOME=" + filepath.Join(home, "data"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	idx := exec.Command(binary, "index", "--corpus", "wiki", docs)
	idx.Env = env
	if out, err := idx.CombinedOutput(); err != nil {
		b.Fatalf("index: %v %s", err, out)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(binary, "mcp")
		cmd.Env = env
		cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cs.Close()
		b.StartTimer()
	}
}
