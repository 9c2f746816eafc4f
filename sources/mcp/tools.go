package mcp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolChoice is the tool a server is searched with, and its fetch tool
// (the search/fetch convention) when it has one.
type toolChoice struct {
	Search, QueryArg string
	Fetch, FetchArg  string
}

// queryArgNames are the argument names preferred for the query when a tool
// takes several strings.
var queryArgNames = []string{"query", "q", "search", "text", "question"}

// chooseTool picks the search tool: the declared one; else the tool named
// "search"; else the only tool whose name contains "search" and that takes
// one string argument. Its query argument is the declared one, else its one
// string argument, else the one named query (q, search, text, question),
// else its one required string.
func chooseTool(tools []*mcp.Tool, tool, queryArg string) (toolChoice, error) {
	byName := map[string]*mcp.Tool{}
	var names []string
	for _, t := range tools {
		byName[t.Name] = t
		names = append(names, t.Name)
	}
	sort.Strings(names)
	list := strings.Join(names, ", ")
	if len(names) == 0 {
		list = "none"
	}
	var pick *mcp.Tool
	switch {
	case tool != "":
		if pick = byName[tool]; pick == nil {
			return toolChoice{}, fmt.Errorf("it has no tool %q (its tools: %s)", tool, list)
		}
	case byName["search"] != nil:
		pick = byName["search"]
	default:
		var cands []string
		for _, n := range names {
			if strings.Contains(strings.ToLower(n), "search") && oneString(byName[n]) != "" {
				cands = append(cands, n)
			}
		}
		switch len(cands) {
		case 0:
			return toolChoice{}, fmt.Errorf("it has no search tool (its tools: %s): name the one to use with \"tool\" in its declaration", list)
		case 1:
			pick = byName[cands[0]]
		default:
			return toolChoice{}, fmt.Errorf("it has several search tools (%s): name the one to use with \"tool\" in its declaration", strings.Join(cands, ", "))
		}
	}
	c := toolChoice{Search: pick.Name, QueryArg: queryArg}
	if c.QueryArg == "" {
		if c.QueryArg = queryArgOf(pick); c.QueryArg == "" {
			return toolChoice{}, fmt.Errorf("its tool %q takes no string argument prefrag can put the query in: name it with \"query_arg\" in its declaration", pick.Name)
		}
	}
	if f := byName["fetch"]; f != nil && f.Name != pick.Name {
		if arg := oneString(f); arg != "" {
			c.Fetch, c.FetchArg = f.Name, arg
		}
	}
	return c, nil
}

// schemaOf reads a tool's input schema: its string properties (sorted) and
// its required properties.
func schemaOf(t *mcp.Tool) (strs, required []string, all int) {
	s, _ := t.InputSchema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		all++
		if pm, ok := p.(map[string]any); ok && isStringType(pm["type"]) {
			strs = append(strs, name)
		}
	}
	sort.Strings(strs)
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required = append(required, name)
			}
		}
	}
	return strs, required, all
}

func isStringType(v any) bool {
	switch v := v.(type) {
	case string:
		return v == "string"
	case []any:
		for _, e := range v {
			if e == "string" {
				return true
			}
		}
	}
	return false
}

// oneString is the name of the one string argument a tool takes: its only
// property, or its only required one; "" otherwise.
func oneString(t *mcp.Tool) string {
	strs, required, all := schemaOf(t)
	if all == 1 && len(strs) == 1 {
		return strs[0]
	}
	if len(required) == 1 && contains(strs, required[0]) {
		return required[0]
	}
	return ""
}

// queryArgOf is where a search tool's query goes.
func queryArgOf(t *mcp.Tool) string {
	if a := oneString(t); a != "" {
		return a
	}
	strs, required, _ := schemaOf(t)
	for _, n := range queryArgNames {
		if contains(strs, n) {
			return n
		}
	}
	var req []string
	for _, r := range required {
		if contains(strs, r) {
			req = append(req, r)
		}
	}
	if len(req) == 1 {
		return req[0]
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
