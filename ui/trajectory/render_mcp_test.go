package trajectory

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// TestMCPSearchHasItsBadge: the workspace's trajectory shows an MCP
// server's search with its own badge, the judge's switch names it, the
// counts give MCP searches apart, and the status figures count it as
// neither local nor web.
func TestMCPSearchHasItsBadge(t *testing.T) {
	a := sources.Document{ID: "w1", Title: "Billing", Text: "The billing pipeline runs nightly.", Source: "local:wiki"}
	m := sources.Document{ID: "memory/Project Heron", Title: "Project Heron", Text: "Project Heron is led by Ada Varga.", Source: "mcp:memory"}
	no, next := false, "mcp:memory"
	tr := New()
	for _, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "Who leads Heron?"}},
		{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "Heron"}},
		{Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "Heron", Docs: []sources.Document{a}}},
		{Step: 1, Payload: engine.Selection{Status: &no, NextSource: &next, Source: "local:wiki", Analysis: "the corpus lacks the lead"}},
		{Step: 1, Payload: engine.Retrieval{Source: "mcp:memory", Query: "Heron", Docs: []sources.Document{m}}},
		{Step: 1, Payload: engine.Observation{Source: "mcp:memory", DocIDs: []string{m.ID}, DocNums: []int{1}, Discarded: []string{"w1"}}},
	} {
		tr.Apply(ev)
	}
	out := ansi.Strip(plainRenderer().Render(tr, View{Width: 110, Upto: -1, Detail: true}).Content())
	for _, want := range []string{"[MCP memory]", "switching to MCP memory", "[LOCAL wiki]"} {
		if !strings.Contains(out, want) {
			t.Errorf("trajectory lacks %q:\n%s", want, out)
		}
	}
	if _, local, web, _ := tr.TurnFigures(1); local != 1 || web != 0 || tr.MCPSearches(1) != 1 {
		t.Errorf("figures local %d, web %d, mcp %d", local, web, tr.MCPSearches(1))
	}
	if got := CountsLine(engine.Counts{LocalRetrievals: 1, MCPRetrievals: 1, UsedRetrievals: 1}); !strings.Contains(got, "searches: 1 local, 1 mcp, 0 web, 1 used") {
		t.Errorf("counts line %q", got)
	}
}
