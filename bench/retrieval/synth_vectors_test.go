package retrieval

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/prefrag/prefrag/sources/local/vector"
)

// The synthetic vectors are anisotropic (far from zero on average) and
// clustered, and the vector leg keeps its recall on them.
// PREFRAG_VECTOR_N and PREFRAG_VECTOR_DIMS scale it up (e.g. 1000000 and
// 384; it then prints the recall and the search time).
func TestSynthVectorRecall(t *testing.T) {
	n, dims := envInt("PREFRAG_VECTOR_N", 20000), envInt("PREFRAG_VECTOR_DIMS", 128)
	e := NewSynthEmbedder(dims, 1)
	dir := t.TempDir()
	w, err := vector.OpenWriter(dir, vector.Meta{Model: e.Model()}, vector.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var locs []vector.Loc
	var mean float64
	for i := range n {
		v := e.Vector(fmt.Sprint("passage ", i))
		mean += float64(v[0])
		var h vector.Hash
		copy(h[:], fmt.Sprint(i))
		l, err := w.Add(h, fmt.Sprint(i), v)
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, l)
		if len(locs) == 8192 || i == n-1 {
			w.SetFile(fmt.Sprint("f", i), "h", locs)
			locs = nil
			if w.FlushDue() {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ix, err := vector.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var qs [][]float32
	for i := range 100 {
		qs = append(qs, e.Vector(fmt.Sprint("question ", i)))
	}
	exact, err := ix.Exact(qs, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, rerank := range []int{100, 200, 400, 800} {
		found, total := 0, 0
		start := time.Now()
		for i, q := range qs {
			hits, err := ix.Search(q, 10, rerank)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, h := range exact[i] {
				want[h.ID] = true
			}
			for _, h := range hits {
				if want[h.ID] {
					found++
				}
			}
			total += 10
		}
		recall := float64(found) / float64(total)
		t.Logf("%d×%d, rerank %d: recall@10 %.3f, %.2f ms a search", n, dims, rerank, recall, float64(time.Since(start).Microseconds())/1000/float64(len(qs)))
		if rerank == vector.DefaultRerank && recall < 0.98 {
			t.Errorf("recall@10 %.3f with the default rerank", recall)
		}
	}
	_ = context.Background()
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
