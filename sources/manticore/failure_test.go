package manticore_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/sphinxtest"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/manticore"
	"github.com/prefrag/prefrag/sources/remote"
)

// bounded fails the test when f takes longer than limit (a generous bound:
// "ends in bounded time", not a speed measurement) and logs the time.
func bounded(t *testing.T, what string, limit time.Duration, f func()) {
	t.Helper()
	start := time.Now()
	f()
	took := time.Since(start)
	t.Logf("%s took %v", what, took.Round(time.Millisecond))
	if took > limit {
		t.Errorf("%s took %v, more than %v", what, took, limit)
	}
}

func TestServerDown(t *testing.T) {
	cl := startCluster(t)
	ctx := context.Background()
	c := open(t, cl.Addr, sphinxtest.Distributed, 5*time.Second)
	if _, err := c.Search(ctx, "paris", 3); err != nil {
		t.Fatal(err)
	}
	cl.Node(0).Stop()
	bounded(t, "search with the server down", 20*time.Second, func() {
		_, err := c.Search(ctx, "paris", 3)
		if !errors.Is(err, manticore.ErrUnreachable) || !errors.Is(err, sources.ErrUnavailable) {
			t.Errorf("Search: %v", err)
		}
	})
	if _, err := c.Health(ctx); !errors.Is(err, manticore.ErrUnreachable) {
		t.Errorf("Health: %v", err)
	}
}

// A distributed search one of whose shards is down answers with the other
// shard's documents and says that some are missing.
func TestShardDown(t *testing.T) {
	cl := startCluster(t)
	ctx := context.Background()
	c := open(t, cl.Addr, sphinxtest.Distributed, 10*time.Second)
	cl.Node(1).Stop()
	docs, err := c.Search(ctx, "paris", 10)
	var pe *remote.PartialError
	if !errors.As(err, &pe) || !errors.Is(err, sources.ErrTruncated) || !errors.Is(err, manticore.ErrPartial) {
		t.Fatalf("Search: %v (docs %v)", err, ids(docs))
	}
	if got := ids(docs); len(got) != 2 || got[0] != "a2" && got[0] != "a1" || contains(got, "b2") {
		t.Errorf("docs %v, want a1 and a2 (shard 1 only)", got)
	}
	t.Logf("partial: %v", err)
	// The shard itself, on the node that is up, still answers in full.
	if _, err := open(t, cl.Addr, sphinxtest.ShardName(0), 0).Search(ctx, "paris", 10); err != nil {
		t.Errorf("shard 1: %v", err)
	}
}

// A hung server (SIGSTOP: the kernel accepts connections, nobody answers)
// fails the search with a timeout, both on a new connection and on a
// pooled one.
func TestTimeout(t *testing.T) {
	cl := startCluster(t)
	ctx := context.Background()
	c := open(t, cl.Addr, sphinxtest.Distributed, 2*time.Second)
	// A pooled connection for the first case (retried: a loaded machine
	// may be slow, the test is not about speed).
	if _, err := retry(func() ([]sources.Document, error) { return c.Search(ctx, "paris", 3) }); err != nil {
		t.Fatal(err)
	}
	cl.Node(0).Freeze()
	defer cl.Node(0).Thaw()
	for _, what := range []string{"pooled connection", "new connection"} {
		bounded(t, what, 20*time.Second, func() {
			_, err := c.Search(ctx, "paris", 3)
			if !errors.Is(err, manticore.ErrTimeout) || !errors.Is(err, sources.ErrUnavailable) {
				t.Errorf("%s: %v", what, err)
			}
		})
	}
	bounded(t, "health", 20*time.Second, func() {
		if _, err := c.Health(ctx); !errors.Is(err, manticore.ErrTimeout) {
			t.Errorf("Health: %v", err)
		}
	})
	// The caller's own deadline counts too.
	c2 := open(t, cl.Addr, sphinxtest.Distributed, time.Minute)
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	bounded(t, "caller's deadline", 20*time.Second, func() {
		if _, err := c2.Search(short, "paris", 3); !errors.Is(err, manticore.ErrTimeout) {
			t.Errorf("caller's deadline: %v", err)
		}
	})
	cl.Node(0).Thaw()
	// Once the server answers again, so does the corpus.
	if docs, err := retry(func() ([]sources.Document, error) { return c.Search(ctx, "paris", 3) }); err != nil || len(docs) != 3 {
		t.Errorf("after thaw: %v %v", ids(docs), err)
	}
}

// A port where something else than SphinxQL listens (an HTTP server that
// says nothing first, here a silent listener) is a timeout; a closed port is
// unreachable.
func TestNotAServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	c := open(t, addr, "dist", 500*time.Millisecond)
	bounded(t, "silent server", 20*time.Second, func() {
		if _, err := c.Search(context.Background(), "paris", 3); !errors.Is(err, manticore.ErrTimeout) {
			t.Errorf("silent server: %v", err)
		}
	})
	l.Close()
	if _, err := c.Search(context.Background(), "paris", 3); !errors.Is(err, manticore.ErrUnreachable) {
		t.Errorf("closed port: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if _, err := c.Search(context.Background(), "paris", 3); err == nil || !strings.Contains(err.Error(), "Close") {
		t.Errorf("after Close: %v", err)
	}
}

// retry calls f until it succeeds, at most 5 times.
func retry(f func() ([]sources.Document, error)) (docs []sources.Document, err error) {
	for range 5 {
		if docs, err = f(); err == nil {
			return docs, nil
		}
	}
	return docs, err
}
