package app

import (
	"fmt"
	"os"
	"strings"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/suggest"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/mcp"
)

// MCPDeclarations reads the declared MCP servers, usable or not, and says
// which file they came from ("" when none was looked for). A file that
// cannot be read or parsed is a configuration error.
func (a *App) MCPDeclarations() ([]mcp.Server, string, error) {
	path, optional := a.Cfg.MCPConfigPath()
	if path == "" {
		return nil, "", nil
	}
	list, err := mcp.Load(path, optional, os.LookupEnv)
	if err != nil {
		return nil, path, fmt.Errorf("%w: %w — fix the file, or name another with mcp_config (PREFRAG_MCP_CONFIG)", config.ErrConfig, err)
	}
	return list, path, nil
}

// openMCP makes every usable declared server a source (nothing starts
// until it is searched) and words why the others are not used.
func (a *App) openMCP(out *Sources) error {
	servers, path, err := a.MCPDeclarations()
	if err != nil {
		return err
	}
	for _, srv := range servers {
		if srv.Problem != "" {
			out.Notices = append(out.Notices, fmt.Sprintf("the MCP server %q declared in %s is not used: %s", srv.Name, path, srv.Problem))
			continue
		}
		src := mcp.New(srv, a.Log)
		out.MCP = append(out.MCP, src)
		out.closers = append(out.closers, src.Close)
	}
	return nil
}

// preferOrder puts the corpora and MCP sources in the order the user asked
// for (--prefer, config prefer): the named ones first, in that order, then
// the others in the default order (corpora, then MCP servers). A name may
// be a corpus ("notes" or "local:notes") or an MCP server ("mcp:kb", or
// its bare name when no corpus has it).
func preferOrder(corpora, servers []engine.Source, prefer []string) ([]engine.Source, error) {
	rest := append(append([]engine.Source{}, corpora...), servers...)
	var out []engine.Source
	for _, name := range preferNames(prefer) {
		i := findSource(rest, name)
		if i < 0 {
			return nil, unknownPreferred(name, corpora, servers)
		}
		out = append(out, rest[i])
		rest = append(rest[:i], rest[i+1:]...)
	}
	return append(out, rest...), nil
}

// preferNames splits comma-separated entries and drops empty ones.
func preferNames(prefer []string) []string {
	var out []string
	for _, p := range prefer {
		for _, n := range strings.Split(p, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// findSource is the index of the source name names in list, or -1.
func findSource(list []engine.Source, name string) int {
	want, typed := sources.ParseName(name)
	for pass := 0; pass < 2; pass++ {
		for i, s := range list {
			n, _ := sources.ParseName(s.Name())
			switch {
			case typed && n.String() == want.String():
				return i
			case !typed && pass == 0 && n.Kind.IsCorpus() && n.ID == name:
				return i
			case !typed && pass == 1 && n.ID == name:
				return i
			}
		}
	}
	return -1
}

// unknownPreferred says that a preferred name names no source of the run.
func unknownPreferred(name string, corpora, servers []engine.Source) error {
	var names []string
	for _, s := range append(append([]engine.Source{}, corpora...), servers...) {
		names = append(names, s.Name())
		n, _ := sources.ParseName(s.Name())
		names = append(names, n.ID)
	}
	msg := fmt.Sprintf("--prefer names %q, which is not a source of this run", name)
	if near := suggest.Closest(name, names); near != "" {
		msg += " — did you mean " + near + "?"
	} else {
		msg += " (its corpora and MCP servers: `prefrag sources`; a corpus must also be searched: --corpus NAME)"
	}
	return fmt.Errorf("%w: %s", engine.ErrInvalidSettings, msg)
}
