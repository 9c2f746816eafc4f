package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func tool(name string, schema string) *mcp.Tool {
	var v any
	if schema != "" {
		v = decodedSchema(schema)
	}
	return &mcp.Tool{Name: name, InputSchema: v}
}

func decodedSchema(s string) any {
	var v any
	if err := jsonUnmarshal(s, &v); err != nil {
		panic(err)
	}
	return v
}

const (
	oneQuery = `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`
	twoArgs  = `{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer"}},"required":["q"]}`
	noString = `{"type":"object","properties":{"names":{"type":"array"}}}`
)

func TestChooseTool(t *testing.T) {
	cases := []struct {
		name        string
		tools       []*mcp.Tool
		tool, arg   string
		want        toolChoice
		wantProblem string
	}{
		{"the tool named search", []*mcp.Tool{tool("search_nodes", oneQuery), tool("search", twoArgs)}, "", "", toolChoice{Search: "search", QueryArg: "q"}, ""},
		{"the only search-like tool with one string", []*mcp.Tool{tool("create_entities", noString), tool("search_nodes", oneQuery), tool("open_nodes", noString)}, "", "", toolChoice{Search: "search_nodes", QueryArg: "query"}, ""},
		{"the declared tool and argument", []*mcp.Tool{tool("find", twoArgs)}, "find", "q", toolChoice{Search: "find", QueryArg: "q"}, ""},
		{"with a fetch tool", []*mcp.Tool{tool("search", oneQuery), tool("fetch", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "", "", toolChoice{Search: "search", QueryArg: "query", Fetch: "fetch", FetchArg: "id"}, ""},
		{"no search tool", []*mcp.Tool{tool("create_note", oneQuery)}, "", "", toolChoice{}, "no search tool (its tools: create_note)"},
		{"two search tools", []*mcp.Tool{tool("search_a", oneQuery), tool("search_b", oneQuery)}, "", "", toolChoice{}, "several search tools (search_a, search_b)"},
		{"a declared tool it lacks", []*mcp.Tool{tool("search", oneQuery)}, "find", "", toolChoice{}, `no tool "find" (its tools: search)`},
		{"a search tool with no string", []*mcp.Tool{tool("search", noString)}, "", "", toolChoice{}, "takes no string argument"},
	}
	for _, c := range cases {
		got, err := chooseTool(c.tools, c.tool, c.arg)
		switch {
		case c.wantProblem != "" && (err == nil || !strings.Contains(err.Error(), c.wantProblem)):
			t.Errorf("%s: %v, want a problem with %q", c.name, err, c.wantProblem)
		case c.wantProblem == "" && (err != nil || got != c.want):
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
