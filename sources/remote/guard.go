package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// Searcher is what a remote corpus client provides: the engine's Source
// plus Close. *elastic.Corpus and *manticore.Corpus fit it.
type Searcher interface {
	Name() string
	Kind() sources.Kind
	Search(ctx context.Context, query string, k int) ([]sources.Document, error)
	Close() error
}

// Health is a remote corpus's state as `prefrag corpora` shows it.
type Health struct {
	// OK is true when the cluster answered and the index exists.
	OK bool `json:"ok"`
	// Status is the cluster's own word when it has one ("green",
	// "yellow", "red"), else "ok" or "unreachable", "auth", "no index", ….
	Status       string `json:"status"`
	Cluster      string `json:"cluster,omitempty"`
	ClusterUUID  string `json:"cluster_uuid,omitempty"`
	Version      string `json:"version,omitempty"`
	Distribution string `json:"distribution,omitempty"`
	// Documents in the index; -1 when unknown.
	Documents int64 `json:"documents"`
	// Problem is one sentence when not OK.
	Problem string        `json:"problem,omitempty"`
	Latency time.Duration `json:"-"`
}

// HealthFunc checks a remote corpus.
type HealthFunc func(ctx context.Context) (Health, error)

// Guard defaults: a request has Spec.Timeout; Threshold consecutive
// failures open the circuit for Cooldown, during which searches fail at
// once without a request.
const (
	DefaultThreshold = 2
	DefaultCooldown  = time.Minute
)

// ErrCircuitOpen is matched while a remote corpus's circuit is open.
var ErrCircuitOpen = errors.New("circuit open")

// CircuitOpenError says the breaker skipped a search.
type CircuitOpenError struct {
	Failures int
	Until    time.Time
	// Left is how long the circuit stays open from when it refused.
	Left time.Duration
	Last string
}

func (e *CircuitOpenError) Error() string {
	msg := fmt.Sprintf("not searched: %d searches in a row failed, so it is skipped for %s more", e.Failures, e.Left.Round(time.Second))
	if e.Last != "" {
		msg += " (last: " + e.Last + ")"
	}
	return msg
}

func (e *CircuitOpenError) Is(target error) bool {
	return target == ErrCircuitOpen || target == sources.ErrUnavailable
}

// TimeoutError says a request got no answer in time.
type TimeoutError struct {
	Source  string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s unavailable: no answer within %s", e.Source, e.Timeout)
}

func (e *TimeoutError) Is(target error) bool { return target == sources.ErrUnavailable }

// GuardOptions tune a Guarded source. Zero values are the defaults.
type GuardOptions struct {
	Timeout   time.Duration
	Threshold int
	Cooldown  time.Duration
	// Secrets are removed from every error message the source returns.
	Secrets  []string
	Health   HealthFunc
	Identity Identity
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Guarded wraps any remote corpus source with a per-request timeout, a
// circuit breaker and secret redaction. It implements the engine's Source.
type Guarded struct {
	src  Searcher
	opts GuardOptions

	mu        sync.Mutex
	fails     int
	openUntil time.Time
	last      string

	idOnce sync.Once
	id     Identity
}

// Guard wraps src.
func Guard(src Searcher, o GuardOptions) *Guarded {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Cooldown <= 0 {
		o.Cooldown = DefaultCooldown
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Guarded{src: src, opts: o}
}

// Name is the wrapped source's name ("local:<corpus>").
func (g *Guarded) Name() string { return g.src.Name() }

// Kind is the wrapped source's kind (local).
func (g *Guarded) Kind() sources.Kind { return g.src.Kind() }

// Close closes the wrapped source.
func (g *Guarded) Close() error { return g.src.Close() }

// Unwrap returns the wrapped source.
func (g *Guarded) Unwrap() Searcher { return g.src }

// Search runs one search under the timeout and the breaker. Partial
// results (errors matching sources.ErrTruncated, with documents) count as
// a success.
func (g *Guarded) Search(ctx context.Context, query string, k int) ([]sources.Document, error) {
	g.mu.Lock()
	if now := g.opts.Now(); now.Before(g.openUntil) {
		err := &CircuitOpenError{Failures: g.fails, Until: g.openUntil, Left: g.openUntil.Sub(now), Last: g.last}
		g.mu.Unlock()
		return nil, &sources.UnavailableError{Source: g.Name(), Err: err}
	}
	g.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	docs, err := g.src.Search(rctx, query, k)
	timedOut := deadlineReached(rctx) && ctx.Err() == nil
	cancel()
	if ctx.Err() != nil {
		return docs, err
	}
	if err != nil && timedOut {
		err = &TimeoutError{Source: g.Name(), Timeout: g.opts.Timeout}
	}
	if err != nil {
		err = g.redact(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err == nil || (errors.Is(err, sources.ErrTruncated) && len(docs) > 0) || errors.Is(err, sources.ErrDegraded) {
		g.fails, g.openUntil, g.last = 0, time.Time{}, ""
		return docs, err
	}
	g.fails++
	g.last = shortReason(err.Error(), g.Name())
	if g.fails >= g.opts.Threshold {
		g.openUntil = g.opts.Now().Add(g.opts.Cooldown)
		err = &openingError{err: err, failures: g.fails, cooldown: g.opts.Cooldown}
	}
	return docs, err
}

// openingError is the failure that opened the circuit: its message says
// so, so the notice tells the analyst why later searches are skipped.
type openingError struct {
	err      error
	failures int
	cooldown time.Duration
}

func (e *openingError) Error() string {
	return fmt.Sprintf("%v; after %d failures in a row it is skipped for %s", e.err, e.failures, e.cooldown)
}

func (e *openingError) Unwrap() error { return e.err }

func (e *openingError) Is(target error) bool { return target == sources.ErrUnavailable }

func shortReason(msg, name string) string {
	msg = strings.TrimPrefix(msg, name+" unavailable: ")
	if len(msg) > 160 {
		msg = msg[:160] + "…"
	}
	return msg
}

// redactedError keeps the chain of err (errors.Is still works) with a
// message that holds no secret.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (g *Guarded) redact(err error) error { return RedactError(err, g.opts.Secrets...) }

// RedactError returns err with every secret removed from its message; the
// chain stays (errors.Is and errors.As still see the original).
func RedactError(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := Redact(msg, secrets...)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// Redact replaces every secret in s with "[redacted]".
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 1 && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// Health checks the corpus (its own timeout applies). Errors become a
// Health with OK false.
func (g *Guarded) Health(ctx context.Context) Health {
	if g.opts.Health == nil {
		return Health{OK: true, Status: "ok", Documents: -1}
	}
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	h, err := g.opts.Health(ctx)
	if err != nil {
		h.OK = false
		if h.Status == "" || h.Status == "ok" {
			h.Status = "unreachable"
		}
		h.Problem = Redact(err.Error(), g.opts.Secrets...)
		if deadlineReached(ctx) {
			h.Problem = (&TimeoutError{Source: g.Name(), Timeout: g.opts.Timeout}).Error()
		}
	}
	return h
}

// deadlineReached reports whether ctx's deadline has passed, even when its
// timer has not fired yet: a client whose socket deadline is the context's
// (an i/o timeout at the same instant) fails a moment before ctx.Err() is
// set, and that failure is a timeout all the same.
func deadlineReached(ctx context.Context) bool {
	if ctx.Err() == context.DeadlineExceeded {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// Identity is what a session's manifest records: the registration's kind,
// URL and index, with the cluster's name, uuid and version when a health
// check (made once, bounded by ctx) could read them.
func (g *Guarded) Identity(ctx context.Context) Identity {
	g.idOnce.Do(func() {
		g.id = g.opts.Identity
		if g.opts.Health == nil {
			return
		}
		h := g.Health(ctx)
		g.id.Cluster, g.id.ClusterUUID, g.id.Version, g.id.Distribution = h.Cluster, h.ClusterUUID, h.Version, h.Distribution
		if h.Documents > 0 {
			g.id.Documents = h.Documents
		}
	})
	return g.id
}
