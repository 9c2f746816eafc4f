package sources

import (
	"strings"
	"testing"
)

func TestNameStringAndParse(t *testing.T) {
	cases := []struct {
		n    Name
		want string
		back Kind // the kind ParseName reads back
	}{
		{CorpusName("wiki"), "local:wiki", KindLocal},
		{Name{Kind: KindRemote, ID: "es"}, "local:es", KindLocal},
		{MCPName("memory"), "mcp:memory", KindMCP},
		{Name{Kind: KindMCPRemote, ID: "kb"}, "mcp:kb", KindMCP},
		{WebName("duckduckgo"), "web:duckduckgo", KindWeb},
		{CorpusName("a:b"), "local:a:b", KindLocal},
	}
	for _, c := range cases {
		if got := c.n.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.n, got, c.want)
		}
		back, ok := ParseName(c.want)
		if !ok || back.Kind != c.back || back.ID != c.n.ID {
			t.Errorf("ParseName(%q) = %+v, %v", c.want, back, ok)
		}
	}
	for _, s := range []string{"mix", "", "ftp:x", "local"} {
		if n, ok := ParseName(s); ok || n.ID != s {
			t.Errorf("ParseName(%q) = %+v, %v: want no source, the text kept", s, n, ok)
		}
	}
}

func TestSourceBadge(t *testing.T) {
	cases := []struct {
		src  string
		text string
		role Role
	}{
		{"local:wiki", "LOCAL wiki", RoleLocal},
		{"mcp:memory", "MCP memory", RoleMCP},
		{"web:searxng", "WEB searxng", RoleWeb},
		{"mix", "MIX", RoleNeutral},
	}
	for _, c := range cases {
		text, role := SourceBadge(c.src)
		if text != c.text || role != c.role {
			t.Errorf("SourceBadge(%q) = %q, %v; want %q, %v", c.src, text, role, c.text, c.role)
		}
	}
	if !IsWeb("web:brave") || IsWeb("local:web") || !IsCorpus("local:x") || IsCorpus("mcp:x") {
		t.Error("IsWeb/IsCorpus read the wrong part")
	}
	if !IsCorpusNamed("local:notes", "notes") || IsCorpusNamed("mcp:notes", "notes") || IsCorpusNamed("local:notes2", "notes") {
		t.Error("IsCorpusNamed")
	}
}

// The kinds table is complete, and says what DESIGN.md's trust rules say:
// a local corpus and a stdio MCP server stay on the machine; a remote
// index, an http MCP server and the web leave it; the web and an http MCP
// server obey the web policy, a remote index (the user's own) does not.
func TestKindsTable(t *testing.T) {
	want := map[Kind]struct{ leaves, policy bool }{
		KindLocal:     {false, false},
		KindRemote:    {true, false},
		KindMCP:       {false, false},
		KindMCPRemote: {true, true},
		KindWeb:       {true, true},
	}
	if len(kinds[:]) != len(want) {
		t.Fatalf("%d rows, want %d", len(kinds[:]), len(want))
	}
	for i, k := range kinds[:] {
		if int(k.Kind) != i {
			t.Errorf("row %d is kind %d", i, k.Kind)
		}
		if k.Label == "" || k.Scheme == "" || k.Badge == "" || k.Role == RoleNeutral || k.Opens == "" || k.Queries == "" {
			t.Errorf("row %s is incomplete: %+v", k.Label, k)
		}
		if k.Badge != strings.ToUpper(k.Scheme) {
			t.Errorf("row %s: badge %q is not its scheme %q", k.Label, k.Badge, k.Scheme)
		}
		w := want[k.Kind]
		if k.Leaves != w.leaves || k.WebPolicy != w.policy {
			t.Errorf("row %s: leaves %v, web policy %v; want %v, %v", k.Label, k.Leaves, k.WebPolicy, w.leaves, w.policy)
		}
		if k.WebPolicy && !k.Leaves {
			t.Errorf("row %s obeys the web policy but stays on the machine", k.Label)
		}
	}
	if KindLocal.Spec().Rank >= KindMCP.Spec().Rank || KindMCP.Spec().Rank >= KindWeb.Spec().Rank {
		t.Error("the default order is corpora, then MCP servers, then the web")
	}
	if !KindRemote.IsCorpus() || KindMCP.IsCorpus() || !KindMCPRemote.IsMCP() || Kind(99).Leaves() != true {
		t.Error("IsCorpus/IsMCP/unknown kind")
	}
}

// ParseName reads names from stored events: it never panics, and what it
// reads prints back as it was.
func FuzzParseName(f *testing.F) {
	for _, s := range []string{"local:wiki", "mcp:m", "web:duckduckgo", "mix", ":", "local:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseName(s)
		if ok && n.String() != s {
			t.Errorf("ParseName(%q) prints back as %q", s, n.String())
		}
		if !ok && n.ID != s {
			t.Errorf("ParseName(%q) lost the text: %+v", s, n)
		}
	})
}

func TestIsNamed(t *testing.T) {
	for _, c := range []struct {
		source, name string
		want         bool
	}{
		{"local:notes", "notes", true},
		{"local:notes", "local:notes", true},
		{"mcp:notes", "notes", false},
		{"mcp:memory", "mcp:memory", true},
		{"mcp:memory", "memory", false},
		{"local:memory", "mcp:memory", false},
	} {
		if got := IsNamed(c.source, c.name); got != c.want {
			t.Errorf("IsNamed(%q, %q) = %v", c.source, c.name, got)
		}
	}
}
