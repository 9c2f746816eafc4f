package mcp

import (
	"context"
	"sort"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// Probe is what a connection to a server showed: who it says it is, its
// tools, and the ones prefrag searches with.
type Probe struct {
	// Server is the name and version the server gives.
	Server string
	// Tools are its tools' names, sorted.
	Tools []string
	// Search and QueryArg are the search tool and the argument the query
	// goes in; Fetch is its fetch tool ("" for none).
	Search, QueryArg, Fetch string
}

// Probe connects (or reuses the connection) and says what the server
// offers. A server that cannot be used is the error Search would give.
func (s *Source) Probe(ctx context.Context) (Probe, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.connected(ctx)
	if err != nil {
		return Probe{}, err
	}
	p := Probe{Server: textsafe.OneLine(c.info), Search: s.choice.Search, QueryArg: s.choice.QueryArg, Fetch: s.choice.Fetch}
	for _, t := range c.tools {
		p.Tools = append(p.Tools, textsafe.OneLine(t.Name))
	}
	sort.Strings(p.Tools)
	return p, nil
}

// Starts is how many times the server was connected to (a stdio server
// started) in this run.
func (s *Source) Starts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starts
}
