package remote

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// expired is a context whose deadline has passed but whose timer has not
// fired yet (Err is nil): the instant in which a client's socket deadline,
// set to the context's, has already failed the read.
type expired struct{ context.Context }

func (expired) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// A failure at the deadline is reported as the guard's timeout whether or
// not the context's timer fired first: the message does not depend on
// which of two simultaneous clocks won.
func TestGuardTimeoutAtTheDeadline(t *testing.T) {
	ioTimeout := errors.New("reading the server's greeting: read tcp 127.0.0.1:1->127.0.0.1:2: i/o timeout")
	for _, tc := range []struct {
		name string
		run  func(g *Guarded, ctx context.Context) string
	}{
		{"search", func(g *Guarded, ctx context.Context) string {
			_, err := g.Search(ctx, "q", 3)
			if err == nil {
				return ""
			}
			return err.Error()
		}},
		{"health", func(g *Guarded, ctx context.Context) string { return g.Health(ctx).Problem }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := Guard(&scripted{errs: []error{ioTimeout}}, GuardOptions{Timeout: 2 * time.Second,
				Health: func(context.Context) (Health, error) { return Health{Documents: -1}, ioTimeout }})
			got := tc.run(g, expired{context.Background()})
			if got != "local:kb unavailable: no answer within 2s" {
				t.Errorf("got %q", got)
			}
			if strings.Contains(got, "127.0.0.1") {
				t.Errorf("the socket error is shown instead: %q", got)
			}
		})
	}
}
