package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/mcp"
)

// NeverLeaveError is a never-leave name that names no corpus of the home
// (or several): a name that protects nothing is refused, never ignored.
// It matches engine.ErrInvalidSettings (a usage error: exit 2) and
// catalog.ErrUnknownCorpus.
type NeverLeaveError struct {
	// From says where the name was given: "--never-leave", "never_leave
	// in /path/config.toml", "the re-run session's never-leave corpora", an
	// MCP tool's argument.
	From string
	Err  error
	// Server is set for an MCP server's name: Err says what to do, and
	// the corpora are no hint.
	Server bool
}

func (e *NeverLeaveError) Error() string {
	if e.Server {
		return fmt.Sprintf("%s: %v", e.From, e.Err)
	}
	return fmt.Sprintf("%s: %v (a never-leave name must name a corpus to protect it; `prefrag corpora` lists them)", e.From, e.Err)
}

func (e *NeverLeaveError) Unwrap() error { return e.Err }

func (e *NeverLeaveError) Is(target error) bool { return target == engine.ErrInvalidSettings }

// ResolveNeverLeave resolves never-leave names to the corpora of the home
// under corporaDir they name (catalog.Resolve: "local:notes" and "notes "
// are notes; "Notes" is notes, with a note). Empty names are dropped:
// `--never-leave ""` asks for none. from says where the names were given,
// for the error and the notes. The notes say how a name that was not a
// corpus's exact name was read; the caller shows them. A name that
// resolves to no corpus is a *NeverLeaveError.
func ResolveNeverLeave(corporaDir string, names []string, from string) (resolved, notes []string, err error) {
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			continue
		}
		if m, ok := sources.ParseName(strings.TrimSpace(n)); ok && m.Kind.IsMCP() {
			// An MCP server's passages (checked against the declarations
			// by the app's ResolveNeverLeave).
			if !slices.Contains(resolved, m.String()) {
				resolved = append(resolved, m.String())
			}
			continue
		}
		r, err := catalog.Resolve(corporaDir, n)
		if err != nil {
			return nil, nil, &NeverLeaveError{From: from, Err: err}
		}
		if r.Note != "" {
			notes = append(notes, from+": "+r.Note)
		}
		if !slices.Contains(resolved, r.Name) {
			resolved = append(resolved, r.Name)
		}
	}
	return resolved, notes, nil
}

// ResolveNeverLeave is ResolveNeverLeave for the app's home. With from ""
// the names are the configured ones, named the way the user gave them
// (the --never-leave flag, never_leave in the config file, …). An agent
// calling prefrag over MCP passes its tool argument's name as from.
func (a *App) ResolveNeverLeave(names []string, from string) (resolved, notes []string, err error) {
	if from == "" {
		from = a.Cfg.Name("never_leave")
	}
	resolved, notes, err = ResolveNeverLeave(a.Cfg.CorporaDir(), names, from)
	if err != nil {
		return nil, nil, err
	}
	if err := a.checkNeverLeaveMCP(resolved, from); err != nil {
		return nil, nil, err
	}
	return resolved, notes, nil
}

// checkNeverLeaveMCP accepts an MCP server in a never-leave list only
// where it is local (stdio, or declared local): the passages of one reached
// over the network live off the machine already.
func (a *App) checkNeverLeaveMCP(names []string, from string) error {
	var servers []mcp.Server
	for _, n := range names {
		m, ok := sources.ParseName(n)
		if !ok || !m.Kind.IsMCP() {
			continue
		}
		if servers == nil {
			var err error
			if servers, _, err = a.MCPDeclarations(); err != nil {
				return err
			}
		}
		i := slices.IndexFunc(servers, func(s mcp.Server) bool { return s.Name == m.ID })
		switch {
		case i < 0:
			file, _ := a.Cfg.MCPConfigPath()
			return &NeverLeaveError{From: from, Server: true, Err: fmt.Errorf("%s names no MCP server declared in %s: declare it there, or leave it out (`prefrag sources` lists the servers)", n, file)}
		case servers[i].Problem != "":
			return &NeverLeaveError{From: from, Server: true, Err: fmt.Errorf("the MCP server %s cannot be used: %s", n, servers[i].Problem)}
		case servers[i].Kind().Leaves():
			return &NeverLeaveError{From: from, Server: true, Err: fmt.Errorf("%s is reached over the network, so its passages already live off this machine: only a corpus or a local MCP server (stdio, or \"local\": true) can be never-leave", n)}
		}
	}
	return nil
}

// resolveThreadNeverLeave reads a thread's recorded never-leave names as
// the corpora they name today where they resolve, and keeps the others as
// recorded: a thread's protection is only ever kept, never dropped (a name
// an older prefrag accepted unchecked, "Notes", is notes).
func resolveThreadNeverLeave(corporaDir string, th *engine.Thread) {
	if th == nil || th.Privacy == nil {
		return
	}
	var out []string
	for _, n := range th.Privacy.NeverLeave {
		if r, err := catalog.Resolve(corporaDir, n); err == nil {
			n = r.Name
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	th.Privacy.NeverLeave = out
}
