package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/distinct"
	"github.com/prefrag/prefrag/sources/local"
)

// distinctCache keeps each never-leave corpus's distinctive strings while
// the corpus is unchanged, so that the workspace builds them once.
type distinctCache struct {
	mu   sync.Mutex
	sets map[string]distinctEntry
}

type distinctEntry struct {
	passages int64
	updated  time.Time
	set      *distinct.Set
}

// ErrRemoteNeverLeave is matched when a never-leave corpus is a remote
// index: prefrag cannot read its passages to check queries against them,
// so every query that would leave the machine is held while it is in
// force.
var ErrRemoteNeverLeave = errors.New("it is a remote index, whose passages prefrag does not read")

// ErrMCPNeverLeave is matched when a never-leave source is an MCP server:
// prefrag holds only what it retrieved from it, so, as for a remote index,
// every query that would leave the machine is held while it is in force.
var ErrMCPNeverLeave = errors.New("it is an MCP server, whose passages prefrag does not hold")

// Distinctive opens the distinctive strings of never-leave corpus name
// (package distinct): built from its passages on first use, then kept
// while the corpus has the same passages and update time. It is the
// engine's DistinctiveFunc.
func (a *App) Distinctive(ctx context.Context, name string) (engine.Distinctive, error) {
	dir := a.Cfg.CorporaDir()
	if n, ok := sources.ParseName(name); ok && n.Kind.IsMCP() {
		return nil, ErrMCPNeverLeave
	}
	if catalog.IsRemote(dir, name) {
		return nil, ErrRemoteNeverLeave
	}
	c, err := local.Open(dir, name)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	st, err := c.Stats()
	if err != nil {
		return nil, err
	}
	a.distinct.mu.Lock()
	e, ok := a.distinct.sets[name]
	a.distinct.mu.Unlock()
	if ok && e.passages == st.Passages && e.updated.Equal(st.Updated) {
		return e.set, nil
	}
	path := filepath.Join(dir, name, "never-leave.set")
	set := readSet(path, st)
	if set == nil {
		t0 := time.Now()
		b := distinct.NewBuilder()
		if err := c.Passages(ctx, func(title, text string) error { b.Add(title, text); return nil }); err != nil {
			return nil, fmt.Errorf("reading its passages: %w", err)
		}
		set = b.Set()
		a.Log.Info("never-leave strings built", "corpus", name, "passages", st.Passages, "took", time.Since(t0))
		if err := writeSet(path, st, set); err != nil {
			a.Log.Warn("never-leave strings not kept", "corpus", name, "err", err)
		}
	}
	a.distinct.mu.Lock()
	if a.distinct.sets == nil {
		a.distinct.sets = map[string]distinctEntry{}
	}
	a.distinct.sets[name] = distinctEntry{passages: st.Passages, updated: st.Updated, set: set}
	a.distinct.mu.Unlock()
	return set, nil
}

// The distinctive strings of a never-leave corpus are kept on disk (they
// take a second or more to build for thousands of passages) in the
// corpus's own folder, never-leave.set, readable by the user alone (and
// deleted with the corpus): a first line with the corpus's passages and
// update time they were built from, then the Set.

// readSet reads the kept Set of a corpus with stats st; nil when there is
// none, it is of another state of the corpus, or it cannot be read.
func readSet(path string, st local.Stats) *distinct.Set {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	head, body, ok := bytes.Cut(raw, []byte("\n"))
	if !ok || string(head) != setHead(st) {
		return nil
	}
	var set distinct.Set
	if set.UnmarshalBinary(body) != nil {
		return nil
	}
	return &set
}

// writeSet keeps set for a corpus with stats st, atomically.
func writeSet(path string, st local.Stats, set *distinct.Set) error {
	body, err := set.MarshalBinary()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".set-*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(setHead(st) + "\n")
	if werr == nil {
		_, werr = tmp.Write(body)
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

func setHead(st local.Stats) string {
	return fmt.Sprintf("prefrag never-leave strings %d %d", st.Passages, st.Updated.UnixNano())
}
