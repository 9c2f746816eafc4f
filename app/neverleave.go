package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/suggest"
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
}

func (e *NeverLeaveError) Error() string {
	return fmt.Sprintf("%s: %v (a never-leave name must name a corpus, or a local MCP server as mcp:NAME, to protect it; `prefrag sources` lists them)", e.From, e.Err)
}

func (e *NeverLeaveError) Unwrap() error { return e.Err }

func (e *NeverLeaveError) Is(target error) bool { return target == engine.ErrInvalidSettings }

// ResolveNeverLeave resolves never-leave names to what they name in the
// home under corporaDir: a corpus (catalog.Resolve: "local:notes" and
// "notes " are notes; "Notes" is notes, with a note), or, written
// "mcp:NAME", a declared MCP server that runs on this machine (servers:
// the declarations; an http one leaves the machine, so it cannot be
// never-leave). Empty names are dropped: `--never-leave ""` asks for none.
// from says where the names were given, for the error and the notes. The
// notes say how a name that was not exact was read; the caller shows them.
// A name that resolves to nothing is a *NeverLeaveError.
func ResolveNeverLeave(corporaDir string, servers []mcp.Server, names []string, from string) (resolved, notes []string, err error) {
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			continue
		}
		name, note, err := resolveOne(corporaDir, servers, n)
		if err != nil {
			return nil, nil, &NeverLeaveError{From: from, Err: err}
		}
		if note != "" {
			notes = append(notes, from+": "+note)
		}
		if !slices.Contains(resolved, name) {
			resolved = append(resolved, name)
		}
	}
	return resolved, notes, nil
}

// resolveOne resolves one never-leave name.
func resolveOne(corporaDir string, servers []mcp.Server, given string) (name, note string, err error) {
	if n, ok := sources.ParseName(strings.TrimSpace(given)); ok && n.Kind.IsMCP() {
		var declared []string
		for _, s := range servers {
			if s.Name != n.ID {
				declared = append(declared, s.SourceName())
				continue
			}
			if s.Kind().Leaves() {
				return "", "", fmt.Errorf("%s is an MCP server reached over %s: what it holds is not on this machine, so it cannot be never-leave (declare it local if it runs here)", s.SourceName(), s.Transport)
			}
			return s.SourceName(), "", nil
		}
		msg := fmt.Sprintf("no MCP server is declared as %q", n.ID)
		if near := suggest.Closest(strings.TrimSpace(given), declared); near != "" {
			msg += " — did you mean " + strconv.Quote(near) + "?"
		}
		return "", "", fmt.Errorf("%w: %s", catalog.ErrUnknownCorpus, msg)
	}
	r, err := catalog.Resolve(corporaDir, given)
	return r.Name, r.Note, err
}

// ResolveNeverLeaveFor is ResolveNeverLeave for the home and the MCP
// declarations of cfg. With from "" the names are the configured ones,
// named the way the user gave them (the --never-leave flag, never_leave in
// the config file, …).
func ResolveNeverLeaveFor(cfg *config.Config, names []string, from string) (resolved, notes []string, err error) {
	if from == "" {
		from = cfg.Name("never_leave")
	}
	var servers []mcp.Server
	if hasMCPName(names) {
		if servers, _, err = mcpDeclarations(cfg); err != nil {
			return nil, nil, err
		}
	}
	return ResolveNeverLeave(cfg.CorporaDir(), servers, names, from)
}

// ResolveNeverLeave is ResolveNeverLeaveFor the app's configuration. An
// agent calling prefrag over MCP passes its tool argument's name as from.
func (a *App) ResolveNeverLeave(names []string, from string) (resolved, notes []string, err error) {
	return ResolveNeverLeaveFor(a.Cfg, names, from)
}

func hasMCPName(names []string) bool {
	for _, n := range names {
		if s, ok := sources.ParseName(strings.TrimSpace(n)); ok && s.Kind.IsMCP() {
			return true
		}
	}
	return false
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
