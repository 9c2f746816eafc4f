package vector

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// clustered returns n unit vectors of dims dimensions drawn around a few
// cluster centres, all shifted by one common direction, as real
// embeddings are (anisotropic: their mean is far from zero).
func clustered(rng *rand.Rand, n, dims, clusters int) [][]float32 {
	common := gaussian(rng, dims, 1)
	centres := make([][]float32, clusters)
	for i := range centres {
		centres[i] = gaussian(rng, dims, 0.6)
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[rng.IntN(clusters)]
		noise := gaussian(rng, dims, 0.35)
		v := make([]float32, dims)
		for j := range v {
			v[j] = 2*common[j] + c[j] + noise[j]
		}
		normalize(v)
		out[i] = v
	}
	return out
}

func gaussian(rng *rand.Rand, dims int, scale float64) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * scale / math.Sqrt(float64(dims)))
	}
	return v
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

func hashOf(s string) Hash {
	sum := sha256.Sum256([]byte(s))
	var h Hash
	copy(h[:], sum[:])
	return h
}

// build writes vecs as passages "f#i" of one file per 100 and finishes.
func build(t *testing.T, dir string, vecs [][]float32, opts WriterOptions) {
	t.Helper()
	w, err := OpenWriter(dir, Meta{Model: "m", Server: "ollama"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var locs []Loc
	for i, v := range vecs {
		l, err := w.Add(hashOf(fmt.Sprint(i)), fmt.Sprintf("p%d", i), v)
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, l)
		if (i+1)%100 == 0 || i == len(vecs)-1 {
			w.SetFile(fmt.Sprintf("f%03d", i/100), "h", locs)
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
}

func TestSearchRecall(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, dims = 20000, 128
	vecs := clustered(rng, n+50, dims, 40)
	dir := t.TempDir()
	build(t, dir, vecs[:n], WriterOptions{MaxPartRecords: 3000})
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Len() != n || ix.MemoryBytes() != n*2*8 {
		t.Fatalf("%d vectors in %d bytes", ix.Len(), ix.MemoryBytes())
	}
	queries := vecs[n:]
	exact, err := ix.Exact(queries, 10)
	if err != nil {
		t.Fatal(err)
	}
	found, total := 0, 0
	for qi, q := range queries {
		hits, err := ix.Search(q, 10, 400)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, h := range exact[qi] {
			want[h.ID] = true
		}
		for _, h := range hits {
			if want[h.ID] {
				found++
			}
		}
		total += len(exact[qi])
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Fatalf("hits out of order: %v", hits)
			}
		}
	}
	if recall := float64(found) / float64(total); recall < 0.98 {
		t.Errorf("recall@10 %.3f, want ≥ 0.98", recall)
	}
}

func TestCacheRemoveAndCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vecs := clustered(rng, 300, 32, 5)
	dir := t.TempDir()
	build(t, dir, vecs, WriterOptions{FlushRecords: 1, FlushEvery: time.Nanosecond})

	// A second run: one file removed, one file's passages reused under
	// new ids; nothing is embedded again.
	w, err := OpenWriter(dir, Meta{Model: "m"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Meta().Dims != 32 || len(w.Files()) != 3 {
		t.Fatalf("meta %+v, %d files", w.Meta(), len(w.Files()))
	}
	w.RemoveFile("f000")
	var locs []Loc
	for i := 100; i < 200; i++ {
		l, ok, err := w.Lookup(hashOf(fmt.Sprint(i)))
		if err != nil || !ok {
			t.Fatalf("text %d not in the cache: %v", i, err)
		}
		id := fmt.Sprintf("p%d", i)
		if i%2 == 0 {
			id = fmt.Sprintf("moved%d", i)
		}
		if l, err = w.Reuse(l, hashOf(fmt.Sprint(i)), id); err != nil {
			t.Fatal(err)
		}
		locs = append(locs, l)
	}
	w.SetFile("f001", "h2", locs)
	if w.Pending() != 50 {
		t.Errorf("%d records queued, want the 50 copies under new ids", w.Pending())
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Len() != 200 {
		t.Errorf("%d vectors searched, want 200", ix.Len())
	}
	hits, err := ix.Search(vecs[150], 1, 0)
	if err != nil || len(hits) != 1 || hits[0].ID != "moved150" || hits[0].Score < 0.999 {
		t.Errorf("nearest to passage 150: %v, %v", hits, err)
	}
	hits, _ = ix.Search(vecs[5], 200, 0)
	for _, h := range hits {
		if h.ID == "p5" {
			t.Errorf("a removed file's passage is still found")
		}
	}
	// Many small parts and a removed file: compacted.
	entries, _ := filepath.Glob(filepath.Join(dir, "g-*", "p-*.vec"))
	if len(entries) > 8 {
		t.Errorf("%d parts after Finish", len(entries))
	}
}

func TestMismatchAndReembed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	build(t, dir, clustered(rng, 50, 16, 2), WriterOptions{})
	if _, err := OpenWriter(dir, Meta{Model: "other"}, WriterOptions{}); err == nil {
		t.Fatal("another model's vectors were accepted")
	} else if me := (*MismatchError)(nil); !errors.As(err, &me) || me.Have.Model != "m" {
		t.Fatalf("err %v", err)
	}
	// A re-embedding cut short leaves the old vectors in use, and is
	// resumed by the next one.
	w, err := OpenWriter(dir, Meta{Model: "other"}, WriterOptions{Reembed: true})
	if err != nil {
		t.Fatal(err)
	}
	vecs := clustered(rng, 20, 24, 2)
	var locs []Loc
	for i, v := range vecs[:10] {
		l, _ := w.Add(hashOf(fmt.Sprint(i)), fmt.Sprint("q", i), v)
		locs = append(locs, l)
	}
	w.SetFile("g", "", locs)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if m, err := ReadMeta(dir); err != nil || m.Model != "m" {
		t.Fatalf("in use during the re-embedding: %+v %v", m, err)
	}
	w, err = OpenWriter(dir, Meta{Model: "other"}, WriterOptions{Reembed: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := w.Lookup(hashOf("3")); !ok {
		t.Error("the re-embedding cut short was not resumed")
	}
	w.SetFile("g", "h", locs)
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	st, err := ReadStatus(dir)
	if err != nil || st.Model != "other" || st.Dims != 24 || st.Vectors != 10 || !st.Complete {
		t.Fatalf("after the re-embedding: %+v %v", st, err)
	}
	gens, _ := filepath.Glob(filepath.Join(dir, "g-*"))
	if len(gens) != 1 {
		t.Errorf("generations left: %v", gens)
	}
}

func TestDamaged(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); !errors.Is(err, ErrNone) {
		t.Fatalf("no vectors: %v", err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	build(t, dir, clustered(rng, 10, 8, 1), WriterOptions{})
	parts, _ := filepath.Glob(filepath.Join(dir, "g-*", "p-*.vec"))
	if err := os.Truncate(parts[0], 70); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrDamaged) {
		t.Fatalf("a truncated part: %v", err)
	}
}

// A first embedding killed after its manifest but before CURRENT named
// it: the next run resumes it rather than embedding everything again.
func TestResumeBeforeCurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	dir := t.TempDir()
	w, err := OpenWriter(dir, Meta{Model: "m"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range clustered(rng, 20, 8, 1) {
		w.Add(hashOf(fmt.Sprint(i)), fmt.Sprint(i), v)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	os.Remove(filepath.Join(dir, currentFile))
	w, err = OpenWriter(dir, Meta{Model: "m"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, ok, _ := w.Lookup(hashOf("7")); !ok {
		t.Error("the vectors written before the kill are not reused")
	}
}
