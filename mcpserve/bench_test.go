package mcpserve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

// BenchmarkSearch is the search tool's cost over a direct search of the
// same corpus (5,000 passages, k 5): "direct" is local.Corpus.Search,
// "tool" a tools/call from an SDK client connected in memory (JSON-RPC,
// argument validation, the result as structured content and text), and
// "overhead" runs the two in turn on the same query and reports the
// difference as overhead-µs/op (goal: at most 1,000), so that the load of
// a busy machine falls on both alike.
func BenchmarkSearch(b *testing.B) {
	a, srv := benchServer(b, 5000)
	c, err := a.OpenCorpus(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	queries := []string{"river delta sediment", "medieval trade routes", "enzyme acidity measurement", "glacier retreat survey"}
	direct := func(i int) {
		if _, err := c.Search(context.Background(), queries[i%len(queries)], 5); err != nil {
			b.Fatal(err)
		}
	}
	var cs *mcp.ClientSession
	tool := func(i int) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": queries[i%len(queries)], "corpus": "bench"}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	b.Run("direct", func(b *testing.B) {
		for i := range b.N {
			direct(i)
		}
	})
	b.Run("tool", func(b *testing.B) {
		cs = benchClient(b, srv)
		for i := range b.N {
			tool(i)
		}
	})
	b.Run("overhead", func(b *testing.B) {
		cs = benchClient(b, srv)
		var over time.Duration
		for i := range b.N {
			t0 := time.Now()
			direct(i)
			t1 := time.Now()
			tool(i)
			over += time.Since(t1) - t1.Sub(t0)
		}
		b.ReportMetric(float64(over.Microseconds())/float64(b.N), "overhead-µs/op")
	})
}

// benchServer is a home with a corpus "bench" of n generated passages.
func benchServer(b *testing.B, n int) (*app.App, *Server) {
	b.Helper()
	home := b.TempDir()
	cfg, err := config.Load(func(k string) (string, bool) {
		if k == "PREFRAG_HOME" || k == "HOME" {
			return home, true
		}
		return "", false
	})
	if err != nil {
		b.Fatal(err)
	}
	words := strings.Fields("river delta sediment medieval trade routes enzyme acidity measurement glacier retreat survey harbour " +
		"copper smelting archive letter treaty census migration drought harvest vaccine trial cohort budget ledger ship canal")
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for i := range n {
		text := make([]string, 60)
		for j := range text {
			text[j] = words[rng.IntN(len(words))]
		}
		fmt.Fprintf(&sb, `{"id":"p%d","title":"Passage %d","text":%q}`+"\n", i, i, strings.Join(text, " "))
	}
	src := filepath.Join(home, "bench.jsonl")
	if err := os.WriteFile(src, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := catalog.Index(context.Background(), cfg.CorporaDir(), "bench", []string{src}, local.IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	a, err := app.Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	srv := New(a, Options{Settings: cfg.Settings, Version: "bench"})
	b.Cleanup(func() {
		srv.Close()
		a.Close()
	})
	return a, srv
}

func benchClient(b *testing.B, srv *Server) *mcp.ClientSession {
	b.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.mcp.Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return cs
}
