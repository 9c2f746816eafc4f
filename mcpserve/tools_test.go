package mcpserve

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// tools/list gives the four tools, each with an input and an output
// schema and a description.
func TestToolsListed(t *testing.T) {
	w := newTestWorld(t, caseStudy())
	cs, _ := w.client()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("tool %s: input schema %v, output schema %v, description %q", tool.Name, tool.InputSchema != nil, tool.OutputSchema != nil, tool.Description)
		}
	}
	slices.Sort(names)
	want := slices.Clone(ToolNames)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

// search returns the pinned corpus's passages (no model call), and fetch
// gives a result's passage whole by its id.
func TestSearchAndFetch(t *testing.T) {
	w := newTestWorld(t, caseStudy())
	w.index("other", map[string]string{"olsen.md": "# Olsen\n\nCarsten Olsen was a Danish plant ecologist.\n"})
	cs, _ := w.client()
	var out SearchOutput
	decode(t, call(t, context.Background(), cs, "search", map[string]any{"query": "Danish chemist pH"}, nil), &out)
	if out.Corpus != "wiki" || len(out.Results) != 1 {
		t.Fatalf("search: %+v, want one passage of the pinned corpus wiki", out)
	}
	p := out.Results[0]
	if !strings.HasPrefix(p.ID, "wiki:") || p.Title != "S. P. L. Sørensen" || !strings.Contains(p.Text, "concept of pH") ||
		p.Score <= 0 || p.Source != "local:wiki" || !strings.HasPrefix(p.URL, "file:///") || p.Locator == "" {
		t.Errorf("passage %+v", p)
	}
	if n := len(w.llm.Requests()); n != 0 {
		t.Errorf("search sent %d requests to the LLM server", n)
	}
	var named SearchOutput
	decode(t, call(t, context.Background(), cs, "search", map[string]any{"query": "ecologist", "corpus": "local:other", "k": 3}, nil), &named)
	if named.Corpus != "other" || len(named.Results) != 1 || !strings.Contains(named.Results[0].Text, "Carsten Olsen") {
		t.Errorf("search of a named corpus: %+v", named)
	}
	var got Passage
	decode(t, call(t, context.Background(), cs, "fetch", map[string]any{"id": p.ID}, nil), &got)
	if got.ID != p.ID || !strings.Contains(got.Text, "acidity and alkalinity") || got.Cut {
		t.Errorf("fetch %q: %+v", p.ID, got)
	}
}

// Long passages are cut in search results (the agent's context is not
// flooded) and given whole by fetch.
func TestSearchCutsLongPassages(t *testing.T) {
	w := newTestWorld(t, caseStudy())
	long := "# Long\n\n" + strings.Repeat("Sørensen measured acidity again. ", 60) + "\n"
	w.index("long", map[string]string{"long.md": long})
	cs, _ := w.client()
	var out SearchOutput
	decode(t, call(t, context.Background(), cs, "search", map[string]any{"query": "acidity", "corpus": "long"}, nil), &out)
	if len(out.Results) == 0 || !out.Results[0].Cut || len([]rune(out.Results[0].Text)) > searchTextRunes+1 {
		t.Fatalf("search of a long passage: %+v", out.Results)
	}
	var whole Passage
	decode(t, call(t, context.Background(), cs, "fetch", map[string]any{"id": out.Results[0].ID}, nil), &whole)
	if whole.Cut || len(whole.Text) <= len(out.Results[0].Text) {
		t.Errorf("fetch gave %d bytes (cut %v), search %d", len(whole.Text), whole.Cut, len(out.Results[0].Text))
	}
}

// Every failure is a tool error (isError) with a one-line reason, never a
// result that looks like an answer.
func TestToolErrors(t *testing.T) {
	w := newTestWorld(t, caseStudy())
	cs, _ := w.client()
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{"query": "  "}, "needs a query"},
		{"search", map[string]any{"query": "pH", "corpus": "wikk"}, `did you mean "wiki"?`},
		{"search", map[string]any{"query": "pH", "k": 500}, "k must be between 1 and 50"},
		{"fetch", map[string]any{"id": "no-colon"}, "not a passage id"},
		{"fetch", map[string]any{"id": "wiki:nope"}, "holds no passage"},
		{"fetch", map[string]any{"id": "nosuch:x"}, `no corpus is named "nosuch"`},
		{"ask", map[string]any{"question": ""}, "needs a question"},
		{"ask", map[string]any{"question": "Q?", "corpora": []string{"wki"}}, `did you mean "wiki"?`},
		{"ask", map[string]any{"question": "Q?", "never_leave": []string{"wikki"}}, `the never_leave argument: no corpus is named "wikki" — did you mean "wiki"?`},
		{"ask", map[string]any{"question": "Q?", "continue": "0000000"}, "0000000"},
		{"sessions", map[string]any{"limit": 1000}, "limit must be between"},
	}
	for _, tt := range tests {
		res := call(t, context.Background(), cs, tt.tool, tt.args, nil)
		text := textOf(res)
		t.Logf("%s %v: %s", tt.tool, tt.args, text)
		if !res.IsError || !strings.Contains(text, tt.want) || strings.Contains(text, "\n") || res.StructuredContent != nil {
			t.Errorf("%s %v: isError %v, structured %v, text %q; want a one-line error with %q", tt.tool, tt.args, res.IsError, res.StructuredContent, text, tt.want)
		}
	}
	if n := len(w.llm.Generations()); n != 0 {
		t.Errorf("refused calls made %d generations", n)
	}
	// An LLM server that is down is an error too, naming the saved session
	// or the reason; never an answer.
	w.llm.Close()
	res := call(t, context.Background(), cs, "ask", map[string]any{"question": "Q?"}, nil)
	t.Logf("LLM down: %s", textOf(res))
	if !res.IsError || strings.Contains(textOf(res), "\n") {
		t.Errorf("ask with the LLM server down: isError %v %q", res.IsError, textOf(res))
	}
	_ = fakellm.DefaultStepReply
}

// The web argument is validated by the input schema: only the three
// policies.
func TestAskWebArgumentSchema(t *testing.T) {
	w := newTestWorld(t, caseStudy())
	cs, _ := w.client()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "Q?", "web": "always"}})
	if err == nil && !res.IsError {
		t.Fatalf("web \"always\" accepted: %s", textOf(res))
	}
}

// A passage ranked ahead of higher scores because its title matches the
// query says so (title_match); its score stays BM25's.
func TestSearchSaysTitleMatch(t *testing.T) {
	w := newTestWorld(t, caseStudy())
	w.index("water", map[string]string{
		"a.md": "# Water\n\nWater water water boils at one hundred degrees. Water is wet. Water water.\n",
		"c.md": "# Kettles\n\nA kettle boils quickly; boils boils boils, at sea level it boils at one hundred degrees.\n",
	})
	cs, _ := w.client()
	var out SearchOutput
	decode(t, call(t, context.Background(), cs, "search", map[string]any{"query": "at sea level water", "corpus": "water"}, nil), &out)
	if len(out.Results) != 2 || out.Results[0].Title != "Water" || out.Results[0].TitleMatch != "in_query" ||
		out.Results[1].TitleMatch != "" || out.Results[0].Score >= out.Results[1].Score {
		t.Errorf("search: %+v", out.Results)
	}
}
