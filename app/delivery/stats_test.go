package delivery

// stats are the pipeline's counters, for the tests.
type stats struct {
	Emitted, Delivered uint64
	Merged             int // token deltas merged into an earlier delta
	Commits            int // persist calls
}

// stats returns the counters so far.
func (p *Pipeline) stats() stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return stats{Emitted: p.emitted, Delivered: p.delivered, Merged: p.merged, Commits: p.commits}
}
