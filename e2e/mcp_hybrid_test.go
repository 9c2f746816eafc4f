package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSearchHit is one result of the MCP search tool, with the rank it had
// in each leg of a search by meaning.
type mcpSearchHit struct {
	Title      string `json:"title"`
	BM25Rank   *int   `json:"bm25_rank"`
	VectorRank *int   `json:"vector_rank"`
}

// The MCP server's search tool searches as `prefrag search` does: by
// meaning too when the corpus has vectors (hybrid, the default, or dense),
// by words alone under --retrieval bm25; a passage says which leg found it.
func TestMCPSearchHonoursRetrieval(t *testing.T) {
	w := hybridWorld(t, nil)
	w.mustRun("index", "--corpus", "garage", "--embed-model", "nomic-embed-text", w.docs)
	const q = "how do I mend an automobile?"
	for _, c := range []struct {
		mode  string
		found bool
	}{{"", true}, {"dense", true}, {"hybrid", true}, {"bm25", false}} {
		t.Run("retrieval "+c.mode, func(t *testing.T) {
			args := []string{"mcp", "--model", "fake-model"}
			if c.mode != "" {
				args = append(args, "--retrieval", c.mode)
			}
			cmd := w.command(context.Background(), args...)
			cmd.Stderr = &lockedBuffer{}
			client, _ := newMCPClient()
			cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("connecting: %v\nstderr: %s", err, cmd.Stderr)
			}
			defer cs.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var out struct {
				Results []mcpSearchHit `json:"results"`
			}
			(&mcpClient{cs, nil}).callTool(t, ctx, "search", map[string]any{"query": q, "corpus": "garage"}, nil, &out)
			if !c.found {
				if len(out.Results) != 0 {
					t.Errorf("bm25 found %+v", out.Results)
				}
				return
			}
			if len(out.Results) == 0 || out.Results[0].Title != "Car repair" {
				t.Fatalf("results %+v: want the car repair passage first", out.Results)
			}
			if r := out.Results[0]; r.VectorRank == nil || *r.VectorRank != 1 || r.BM25Rank != nil {
				t.Errorf("ranks bm25 %v, vector %v: want found by meaning only, first", r.BM25Rank, r.VectorRank)
			}
		})
	}
}
