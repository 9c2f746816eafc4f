package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

type namedSource struct {
	name string
	kind sources.Kind
}

func (n namedSource) Name() string       { return n.name }
func (n namedSource) Kind() sources.Kind { return n.kind }
func (n namedSource) Search(context.Context, string, int) ([]sources.Document, error) {
	return nil, nil
}

func names(list []engine.Source) string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name())
	}
	return strings.Join(out, " ")
}

// --prefer puts the named sources first, in its order; the others follow
// in the default order: corpora, then MCP servers.
func TestPreferOrder(t *testing.T) {
	corpora := []engine.Source{namedSource{"local:notes", sources.KindLocal}, namedSource{"local:kb", sources.KindRemote}}
	servers := []engine.Source{namedSource{"mcp:memory", sources.KindMCP}, namedSource{"mcp:kb", sources.KindMCPRemote}}
	cases := []struct {
		prefer []string
		want   string
	}{
		{nil, "local:notes local:kb mcp:memory mcp:kb"},
		{[]string{"mcp:memory"}, "mcp:memory local:notes local:kb mcp:kb"},
		{[]string{"mcp:kb, notes"}, "mcp:kb local:notes local:kb mcp:memory"},
		{[]string{"kb"}, "local:kb local:notes mcp:memory mcp:kb"},
		{[]string{"memory", "local:kb"}, "mcp:memory local:kb local:notes mcp:kb"},
	}
	for _, c := range cases {
		got, err := preferOrder(corpora, servers, c.prefer)
		if err != nil || names(got) != c.want {
			t.Errorf("prefer %q: %q, %v; want %q", c.prefer, names(got), err, c.want)
		}
	}
	_, err := preferOrder(corpora, servers, []string{"mcp:memroy"})
	if !errors.Is(err, engine.ErrInvalidSettings) || !strings.Contains(err.Error(), "did you mean mcp:memory?") {
		t.Errorf("unknown name: %v", err)
	}
}
