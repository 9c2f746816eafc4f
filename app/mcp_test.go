package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/config"
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

// An MCP server may be never-leave only where it is local: a declared
// stdio server is accepted as "mcp:NAME", an http one or an undeclared
// name is a usage error; its passages then hold every query that leaves.
func TestNeverLeaveMCP(t *testing.T) {
	home := t.TempDir()
	decl := filepath.Join(home, "mcp.json")
	os.WriteFile(decl, []byte(`{"mcpServers": {"memory": {"command": "mem"}, "wiki": {"url": "https://wiki.example/mcp"}, "intra": {"url": "http://127.0.0.1:9/mcp", "local": true}}}`), 0o644)
	a := &App{Cfg: &config.Config{Home: home, MCPConfig: decl}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	got, _, err := a.ResolveNeverLeave([]string{"mcp:memory", "mcp:intra"}, "--never-leave")
	if err != nil || strings.Join(got, ",") != "mcp:memory,mcp:intra" {
		t.Fatalf("%q, %v", got, err)
	}
	for _, bad := range []string{"mcp:wiki", "mcp:nope"} {
		_, _, err := a.ResolveNeverLeave([]string{bad}, "--never-leave")
		if !errors.Is(err, engine.ErrInvalidSettings) {
			t.Errorf("%s: %v, want a usage error", bad, err)
		}
		// The reason is the server's, not the corpora's: no hint to
		// `prefrag corpora` for a server's name; the file it is read from.
		if msg := fmt.Sprint(err); strings.Contains(msg, "prefrag corpora") || bad == "mcp:nope" && !strings.Contains(msg, "no MCP server declared in "+decl) {
			t.Errorf("%s: %q", bad, msg)
		}
	}
	if _, err := a.Distinctive(context.Background(), "mcp:memory"); !errors.Is(err, ErrMCPNeverLeave) {
		t.Errorf("Distinctive: %v", err)
	}
}
