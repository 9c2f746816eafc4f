package elastic_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakeelastic"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/elastic"
)

// conceptEmbedder embeds with the fake server's concept model in process.
type conceptEmbedder struct{ calls int }

func (e *conceptEmbedder) Embed(_ context.Context, texts []string, _ func(int)) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakellm.Embed(t, 32)
	}
	return out, nil
}

func (e *conceptEmbedder) Model() string { return "nomic-embed-text" }

var garage = []fakeelastic.Doc{
	{ID: "car", Title: "Car repair", Text: "Replacing worn brake pads keeps a car safe."},
	{ID: "bread", Title: "Bread", Text: "A sourdough loaf needs flour, water and salt."},
	{ID: "boat", Title: "Harbour", Text: "Fishing boats unload their catch at dawn."},
}

func vectorOf(text string) []float32 { return fakellm.Embed(text, 32) }

func TestKnnHybridAndDense(t *testing.T) {
	const q = "mend an automobile"
	for _, flavor := range []string{fakeelastic.Elasticsearch8, fakeelastic.OpenSearch2} {
		t.Run(flavor, func(t *testing.T) {
			srv := fakeelastic.New(t, fakeelastic.Options{Flavor: flavor, Docs: garage, APIKey: secretKey, VectorField: "embedding", Vector: vectorOf})
			for _, mode := range []string{sources.RetrievalBM25, sources.RetrievalHybrid, sources.RetrievalDense, ""} {
				e := &conceptEmbedder{}
				c := open(t, srv, func(cfg *elastic.Config) { cfg.VectorField, cfg.Retrieval, cfg.Embedder = "embedding", mode, e })
				got, err := c.Search(context.Background(), q, 2)
				if err != nil {
					t.Fatalf("%q: %v", mode, err)
				}
				if mode == sources.RetrievalBM25 {
					if len(got) != 0 || e.calls != 0 {
						t.Errorf("bm25 found %v (%d embeddings)", got, e.calls)
					}
					continue
				}
				if len(got) == 0 || got[0].ID != "car" || got[0].Ranks == nil || got[0].Ranks.Vector != 1 || got[0].Ranks.BM25 != 0 || got[0].Source != "local:kb" {
					t.Fatalf("%q: %+v", mode, got)
				}
			}
			bodies := strings.Join(srv.Bodies(), "\n")
			want := `"knn":{"field":"embedding"`
			if flavor == fakeelastic.OpenSearch2 {
				want = `"query":{"knn":{"embedding":{"k":50,"vector":[`
			}
			if !strings.Contains(bodies, want) {
				t.Errorf("no %s in the requests:\n%.500s", want, bodies)
			}
		})
	}
}

// An index without the vector field, or a cluster without knn, is
// searched by BM25 with a note.
func TestKnnFallsBackToBM25(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    fakeelastic.Options
		note string
	}{
		{"no vector field", fakeelastic.Options{Docs: garage}, "has no dense_vector or knn_vector field embedding"},
		{"elasticsearch 7", fakeelastic.Options{Flavor: fakeelastic.Elasticsearch7, Docs: garage, VectorField: "embedding", Vector: vectorOf}, "START_OBJECT in [knn]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.APIKey = secretKey
			srv := fakeelastic.New(t, tc.o)
			c := open(t, srv, func(cfg *elastic.Config) {
				cfg.VectorField, cfg.Retrieval, cfg.Embedder = "embedding", sources.RetrievalHybrid, &conceptEmbedder{}
			})
			got, err := c.Search(context.Background(), "car brake pads", 2)
			if !errors.Is(err, sources.ErrDegraded) || !strings.Contains(err.Error(), tc.note) {
				t.Fatalf("err %v, want a note saying %q", err, tc.note)
			}
			if len(got) == 0 || got[0].ID != "car" || got[0].Ranks != nil {
				t.Errorf("BM25 documents %+v", got)
			}
		})
	}
}
