package engine

import (
	"context"
	"fmt"
	"strconv"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/distinct"
)

// Distinctive finds, in a text, a distinctive string of one never-leave
// corpus (an identifier, a long number, a rare name, a run of its words):
// package distinct's Set, built from the corpus's passages.
type Distinctive interface {
	Find(text string) (distinct.Match, bool)
}

// DistinctiveFunc opens the distinctive strings of never-leave corpus name
// (the app builds them from its passages, once). A corpus that cannot be
// read is an error: its queries are then held, never sent unchecked.
type DistinctiveFunc func(ctx context.Context, corpus string) (Distinctive, error)

// leakHold is why a query may not leave the machine without the user's
// consent (DESIGN.md, trust rules): passages of a never-leave corpus are
// in the context (bookkeeping), or the query itself carries a distinctive
// string of one (content), whoever wrote it — the model, the user's
// question or follow-up, a rewrite, an earlier answer.
type leakHold struct {
	corpus string
	// match is what the query carries (nil for a context hold). Its Text
	// is the secret: shown to the user, never put into a note.
	match *distinct.Match
	// unread says the corpus could not be read to check the query.
	unread error
}

// leakCheck holds a query to a source that leaves the machine when it may
// carry a never-leave corpus's content. A query to the never-leave corpus
// itself (a remote index marked never-leave) is not held for that corpus.
func (r *run) leakCheck(ctx context.Context, src Source, query string) (*leakHold, error) {
	if !src.Kind().Leaves() || len(r.settings.NeverLeave) == 0 {
		return nil, nil
	}
	own := ""
	if n, ok := sources.ParseName(src.Name()); ok && n.Kind.IsCorpus() {
		own = n.ID
	}
	for _, name := range r.settings.NeverLeave {
		if name != own && r.contextHolds(name) {
			return &leakHold{corpus: name}, nil
		}
	}
	for _, name := range r.settings.NeverLeave {
		if name == own {
			continue
		}
		d, err := r.distinctive(ctx, name)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return &leakHold{corpus: name, unread: err}, nil
		}
		if d == nil {
			continue
		}
		if m, ok := d.Find(query); ok {
			return &leakHold{corpus: name, match: &m}, nil
		}
	}
	return nil, nil
}

// contextHolds reports whether passages of never-leave source name (a
// corpus, or a local MCP server "mcp:NAME") are in the context
// (or about to enter it with the reflection supplement).
func (r *run) contextHolds(name string) bool {
	for _, list := range [][]Document{r.ledger.docs, r.phase.pending} {
		for _, d := range list {
			if sources.IsNamed(d.Source, name) {
				return true
			}
		}
	}
	return false
}

// distinctive opens never-leave corpus name's distinctive strings once per
// run; nil without a DistinctiveFunc (the content check is then off: the
// engine's own tests and the evaluation harness).
func (r *run) distinctive(ctx context.Context, name string) (Distinctive, error) {
	if r.req.Distinctive == nil {
		return nil, nil
	}
	if r.leaks.sets == nil {
		r.leaks.sets = map[string]Distinctive{}
		r.leaks.errs = map[string]error{}
	}
	if d, ok := r.leaks.sets[name]; ok {
		return d, r.leaks.errs[name]
	}
	d, err := r.req.Distinctive(ctx, name)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	r.leaks.sets[name], r.leaks.errs[name] = d, err
	return d, err
}

// leakState caches each never-leave corpus's distinctive strings for a run.
type leakState struct {
	sets map[string]Distinctive
	errs map[string]error
}

// why says what holds the query, for the model and the events: the corpus
// and the kind of string, never the string itself.
func (h *leakHold) why() string {
	c := strconv.Quote(h.corpus)
	switch {
	case h.unread != nil:
		return fmt.Sprintf("never-leave corpus %s could not be read to check the query (%v)", c, h.unread)
	case h.match != nil:
		return fmt.Sprintf("the query carries %s from never-leave corpus %s", h.match.Kind, c)
	}
	if n, ok := sources.ParseName(h.corpus); ok && !n.Kind.IsCorpus() {
		return fmt.Sprintf("the context holds passages of %s, marked never-leave", c)
	}
	return fmt.Sprintf("the context holds passages of corpus %s, marked never-leave", c)
}
