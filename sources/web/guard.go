package web

import (
	"context"
	"sync"
	"time"
)

// Clock is the time source of a HostGuard. Tests substitute one that
// advances instantly.
type Clock interface {
	Now() time.Time
	// SleepUntil waits until t or until ctx is done, whichever comes
	// first, and returns ctx.Err() in the second case.
	SleepUntil(ctx context.Context, t time.Time) error
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// HostGuard spaces requests to each host and keeps each host's circuit
// breaker. One guard is shared by every engine of the process unless a
// Config names another, so two sessions searching DuckDuckGo at once still
// respect one interval.
type HostGuard struct {
	clock Clock
	mu    sync.Mutex
	hosts map[string]*hostState
}

type hostState struct {
	// next is the earliest time the next request may start; every waiter
	// reserves its slot by moving it forward.
	next time.Time
	// blocks counts consecutive blocks; a success resets it.
	blocks    int
	openUntil time.Time
}

// processGuard is used by engines whose Config has no Guard.
var processGuard = NewHostGuard(nil)

// NewHostGuard returns an empty guard on the given clock (nil: the system
// clock).
func NewHostGuard(clock Clock) *HostGuard {
	if clock == nil {
		clock = systemClock{}
	}
	return &HostGuard{clock: clock, hosts: make(map[string]*hostState)}
}

func (g *HostGuard) state(host string) *hostState {
	st := g.hosts[host]
	if st == nil {
		st = &hostState{}
		g.hosts[host] = st
	}
	return st
}

// Wait blocks until a request to host may start, at least interval after
// the previous one started. Callers are served in the order they arrive.
func (g *HostGuard) Wait(ctx context.Context, host string, interval time.Duration) error {
	if interval <= 0 {
		return ctx.Err()
	}
	g.mu.Lock()
	now := g.clock.Now()
	st := g.state(host)
	slot := st.next
	if slot.Before(now) {
		slot = now
	}
	st.next = slot.Add(interval)
	g.mu.Unlock()
	return g.clock.SleepUntil(ctx, slot)
}

// circuit reports whether host's circuit is open, until when, and after
// how many consecutive blocks.
func (g *HostGuard) circuit(host string) (until time.Time, blocks int, open bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.hosts[host]
	if st == nil || !g.clock.Now().Before(st.openUntil) {
		return time.Time{}, 0, false
	}
	return st.openUntil, st.blocks, true
}

// recordBlock counts a block from host and opens its circuit once
// threshold consecutive blocks are reached. After the cool-down one
// request goes through; if it is blocked too the circuit opens again at
// once (the count stays at or above the threshold).
func (g *HostGuard) recordBlock(host string, threshold int, cooldown time.Duration) (consecutive int, openedUntil time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.state(host)
	st.blocks++
	if threshold > 0 && st.blocks >= threshold {
		st.openUntil = g.clock.Now().Add(cooldown)
		return st.blocks, st.openUntil
	}
	return st.blocks, time.Time{}
}

// recordSuccess closes host's circuit and resets its count.
func (g *HostGuard) recordSuccess(host string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.state(host)
	st.blocks = 0
	st.openUntil = time.Time{}
}
