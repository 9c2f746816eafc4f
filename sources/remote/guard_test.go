package remote

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// scripted is a remote corpus whose answers are given in advance.
type scripted struct {
	mu    sync.Mutex
	calls int
	errs  []error
	hang  bool
}

func (s *scripted) Name() string       { return "local:kb" }
func (s *scripted) Kind() sources.Kind { return sources.KindLocal }
func (s *scripted) Close() error       { return nil }
func (s *scripted) Search(ctx context.Context, q string, k int) ([]sources.Document, error) {
	s.mu.Lock()
	i := s.calls
	s.calls++
	s.mu.Unlock()
	if s.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if i < len(s.errs) && s.errs[i] != nil {
		return nil, s.errs[i]
	}
	return []sources.Document{{ID: "d", Text: "t"}}, nil
}

func TestGuardBreaker(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	down := &sources.UnavailableError{Source: "local:kb", Err: errors.New("connection refused; token=s3cr3t")}
	src := &scripted{errs: []error{nil, down, down, nil}}
	g := Guard(src, GuardOptions{Timeout: time.Second, Threshold: 2, Cooldown: time.Minute, Now: clock, Secrets: []string{"s3cr3t"}})
	ctx := context.Background()
	if _, err := g.Search(ctx, "q", 3); err != nil {
		t.Fatal(err)
	}
	_, err := g.Search(ctx, "q", 3)
	if !errors.Is(err, sources.ErrUnavailable) || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("first failure: %v", err)
	}
	_, err = g.Search(ctx, "q", 3)
	if !strings.Contains(err.Error(), "skipped for 1m0s") {
		t.Errorf("second failure should open the circuit: %v", err)
	}
	_, err = g.Search(ctx, "q", 3)
	if !errors.Is(err, ErrCircuitOpen) || !errors.Is(err, sources.ErrUnavailable) || src.calls != 3 {
		t.Errorf("open circuit: %v after %d calls", err, src.calls)
	}
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("secret in %v", err)
	}
	now = now.Add(61 * time.Second)
	if _, err := g.Search(ctx, "q", 3); err != nil || src.calls != 4 {
		t.Errorf("after the cool-down: %v, %d calls", err, src.calls)
	}
}

func TestGuardTimeout(t *testing.T) {
	g := Guard(&scripted{hang: true}, GuardOptions{Timeout: 200 * time.Millisecond})
	t0 := time.Now()
	_, err := g.Search(context.Background(), "q", 3)
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, sources.ErrUnavailable) || time.Since(t0) > 20*time.Second {
		t.Errorf("%v after %s", err, time.Since(t0))
	}
	// A cancelled caller is not a failure of the corpus.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g2 := Guard(&scripted{hang: true}, GuardOptions{Threshold: 1, Timeout: 100 * time.Millisecond})
	g2.Search(ctx, "q", 3)
	if _, err := g2.Search(context.Background(), "q", 3); errors.Is(err, ErrCircuitOpen) {
		t.Errorf("cancellation opened the circuit")
	}
}

func TestGuardPartialIsSuccess(t *testing.T) {
	partial := &sources.TruncatedError{Engine: "local:kb", Limit: 1 << 20, Results: 1}
	src := &partialSrc{err: partial}
	g := Guard(src, GuardOptions{Threshold: 1})
	for i := 0; i < 3; i++ {
		docs, err := g.Search(context.Background(), "q", 3)
		if len(docs) != 1 || !errors.Is(err, sources.ErrTruncated) {
			t.Fatalf("%d: %v %v", i, docs, err)
		}
	}
}

type partialSrc struct{ err error }

func (s *partialSrc) Name() string       { return "local:kb" }
func (s *partialSrc) Kind() sources.Kind { return sources.KindLocal }
func (s *partialSrc) Close() error       { return nil }
func (s *partialSrc) Search(context.Context, string, int) ([]sources.Document, error) {
	return []sources.Document{{ID: "a"}}, s.err
}
