package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prefrag/prefrag/engine"
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

// Distinctive opens the distinctive strings of never-leave corpus name
// (package distinct): built from its passages on first use, then kept
// while the corpus has the same passages and update time. It is the
// engine's DistinctiveFunc.
func (a *App) Distinctive(ctx context.Context, name string) (engine.Distinctive, error) {
	dir := a.Cfg.CorporaDir()
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
	t0 := time.Now()
	b := distinct.NewBuilder()
	if err := c.Passages(ctx, func(title, text string) error { b.Add(title, text); return nil }); err != nil {
		return nil, fmt.Errorf("reading its passages: %w", err)
	}
	set := b.Set()
	a.Log.Info("never-leave strings", "corpus", name, "passages", st.Passages, "took", time.Since(t0))
	a.distinct.mu.Lock()
	if a.distinct.sets == nil {
		a.distinct.sets = map[string]distinctEntry{}
	}
	a.distinct.sets[name] = distinctEntry{passages: st.Passages, updated: st.Updated, set: set}
	a.distinct.mu.Unlock()
	return set, nil
}
