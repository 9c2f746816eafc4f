package local

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/prefrag/prefrag/sources"
)

// The search must rank exactly as the previous implementation read every
// posting (an exhaustive textbook BM25 over Bleve's postings): the same
// passages, in the same order, with the same float scores, whatever the
// segment layout, the number of cores and the pruning.

// exhaustive ranks with the previous implementation and every posting read.
func exhaustive(t testing.TB, c *Corpus, query string, k int) []sources.Document {
	t.Helper()
	h, err := c.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer c.release(h)
	pruningLegacy = false
	defer func() { pruningLegacy = true }()
	docs, err := searchLegacy(context.Background(), h, query, k, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// current ranks with the current implementation on procs cores.
func current(t testing.TB, c *Corpus, query string, k, procs int) []sources.Document {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	h, err := c.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer c.release(h)
	docs, err := search(context.Background(), h, query, k, c.opts)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// sameRanking reports the first difference between two rankings, "" when
// they are identical (ids, order, score bits, stored fields).
func sameRanking(got, want []sources.Document) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d hits, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || math.Float64bits(g.Score) != math.Float64bits(w.Score) {
			return fmt.Sprintf("hit %d: %s %v, want %s %v", i, g.ID, g.Score, w.ID, w.Score)
		}
		if g.Title != w.Title || g.Text != w.Text || g.Locator != w.Locator || g.URL != w.URL {
			return fmt.Sprintf("hit %d %s: stored fields differ", i, g.ID)
		}
	}
	return ""
}

// checkEquivalent ranks every query with every k on 1 and 2 cores (with
// segments split into small ranges) and compares with the exhaustive
// ranking; it returns how many rankings were compared.
func checkEquivalent(t *testing.T, c *Corpus, queries []string, ks []int) int {
	t.Helper()
	old := c.opts.tuning
	defer func() { c.opts.tuning = old }()
	def := old.resolved()
	n := 0
	for _, q := range queries {
		for _, k := range ks {
			want := exhaustive(t, c, q, k)
			for _, v := range []struct {
				procs      int
				task, bmax uint64
			}{{1, def.minTaskDocs, def.blockMaxMin}, {2, 7, 3}, {3, 64, 1}} {
				c.opts.tuning = searchTuning{minTaskDocs: v.task, blockMaxMin: v.bmax, boundsAfterUses: def.boundsAfterUses}
				if v.bmax < def.blockMaxMin {
					c.opts.tuning.boundsAfterUses = -1 // bounds from the first query
				}
				if diff := sameRanking(current(t, c, q, k, v.procs), want); diff != "" {
					t.Fatalf("%q k=%d procs=%d tasks of %d, block bounds from %d postings: %s", q, k, v.procs, v.task, v.bmax, diff)
				}
				n++
			}
		}
	}
	return n
}

func segmentCount(t testing.TB, c *Corpus) int {
	t.Helper()
	h, err := c.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer c.release(h)
	adv, _ := h.idx.Advanced()
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return len(r.(*scorch.IndexSnapshot).Segments())
}

// adversarialCorpus indexes, without merging, many small segments: a tiny
// vocabulary (so every term is common), a term in every passage, exact
// duplicates (ties, also across segments), passages updated (their old
// versions deleted) and files removed (segments with no live passage left).
func adversarialCorpus(t *testing.T, seed int64) (dir string, queries []string) {
	t.Helper()
	// Many segments are the point: no settling merge at the end of the ingest.
	wo := holdMerges(WriterOptions{SettleSegments: -1})
	rng := rand.New(rand.NewSource(seed))
	vocab := []string{"river", "delta", "boat", "harbour", "ship", "cargo", "storm", "tide", "coast", "light",
		"house", "keeper", "island", "fog", "signal", "bell", "rock", "reef", "wreck", "anchor"}
	rare := []string{"zqlantern", "zqmast"}
	src := t.TempDir()
	dir = t.TempDir()
	text := func() string {
		n := 1 + rng.Intn(30)
		ws := []string{"sea"} // in every passage
		for j := 0; j < n; j++ {
			ws = append(ws, vocab[min(rng.Intn(len(vocab)), rng.Intn(len(vocab)))])
		}
		if rng.Intn(60) == 0 {
			ws = append(ws, rare[rng.Intn(len(rare))])
		}
		return strings.Join(ws, " ")
	}
	var prev string
	file := func(part, size int) []map[string]string {
		var recs []map[string]string
		for i := 0; i < size; i++ {
			tx := text()
			if i%7 == 3 && prev != "" {
				tx = prev // duplicates: equal scores
			}
			prev = tx
			recs = append(recs, map[string]string{"id": fmt.Sprintf("p%02d-%03d", part, (i*37)%size), "title": vocab[rng.Intn(len(vocab))], "text": tx})
		}
		return recs
	}
	for part := 0; part < 7; part++ {
		writeJSONL(t, filepath.Join(src, fmt.Sprintf("c%d.jsonl", part)), file(part, 40+rng.Intn(80)))
		mustIndexWith(t, wo, dir, "a", filepath.Join(src, fmt.Sprintf("c%d.jsonl", part)))
	}
	// Updates: two files rewritten (their passages replaced), one removed.
	for _, part := range []int{1, 4} {
		writeJSONL(t, filepath.Join(src, fmt.Sprintf("c%d.jsonl", part)), file(part, 30+rng.Intn(60)))
		mustIndexWith(t, wo, dir, "a", filepath.Join(src, fmt.Sprintf("c%d.jsonl", part)))
	}
	if err := os.Remove(filepath.Join(src, "c2.jsonl")); err != nil {
		t.Fatal(err)
	}
	mustIndexWith(t, wo, dir, "a", src)
	queries = []string{
		"sea", "sea sea sea", "river river boat", "zqlantern", "zqlantern zqmast sea",
		"storm at the coast?", "the of and", "", "nothingmatches", "light house keeper light",
		"fog bell rock reef wreck anchor island signal tide coast cargo ship harbour",
	}
	for i := 0; i < 20; i++ {
		n := 1 + rng.Intn(8)
		var ws []string
		for j := 0; j < n; j++ {
			ws = append(ws, vocab[rng.Intn(len(vocab))])
		}
		queries = append(queries, strings.Join(ws, " "))
	}
	return dir, queries
}

// TestSearchMatchesExhaustiveAdversarial compares with the exhaustive
// ranking on many segments with deletions, ties, very common terms,
// repeated query terms and k beyond the number of matches.
func TestSearchMatchesExhaustiveAdversarial(t *testing.T) {
	dir, queries := adversarialCorpus(t, 1)
	for _, opts := range []Options{{}, {TitleBoost: 0.5}} {
		opts.IdleRelease = -1
		c, err := OpenWith(dir, "a", opts)
		if err != nil {
			t.Fatal(err)
		}
		if segs := segmentCount(t, c); segs < 6 {
			t.Fatalf("%d segments: the test needs many", segs)
		}
		n := checkEquivalent(t, c, queries, []int{1, 2, 10, 50, 10000})
		c.Close()
		if n == 0 {
			t.Fatal("nothing compared")
		}
	}
}

// TestSearchMatchesExhaustiveRandom is a randomised property test: random
// corpora (sizes, vocabularies, segment layouts) and random queries rank
// exactly as the exhaustive scorer.
func TestSearchMatchesExhaustiveRandom(t *testing.T) {
	for seed := int64(2); seed < 6; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			dir, queries := adversarialCorpus(t, seed)
			c, err := OpenWith(dir, "a", Options{IdleRelease: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			rng := rand.New(rand.NewSource(seed))
			ks := []int{1 + rng.Intn(3), 5 + rng.Intn(20), 40 + rng.Intn(400)}
			checkEquivalent(t, c, queries[11:], ks)
		})
	}
}

// TestSearchMatchesExhaustiveZipf compares on 3,000 passages of Zipf text
// (long lists of common terms next to rare ones), split in ranges.
func TestSearchMatchesExhaustiveZipf(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	queries := syntheticCorpus(t, filepath.Join(src, "c.jsonl"), 3000)
	mustIndex(t, dir, "z", src)
	for _, opts := range []Options{{}, {TitleBoost: 0.5}} {
		opts.IdleRelease = -1
		c, err := OpenWith(dir, "z", opts)
		if err != nil {
			t.Fatal(err)
		}
		checkEquivalent(t, c, queries[:60], []int{1, 10, 50})
		c.Close()
	}
}

// TestSearchMatchesExhaustiveRealData compares on the real collections of
// ../shared/data (Vaswani's abstracts and queries), with the product's
// default ranking (top 50 then title heuristics) too.
func TestSearchMatchesExhaustiveRealData(t *testing.T) {
	data := sharedData(t, "ir/vaswani-npl")
	if data == "" {
		t.Skip("../shared/data/ir/vaswani-npl is absent")
	}
	src, dir := t.TempDir(), t.TempDir()
	vaswaniJSONL(t, data, filepath.Join(src, "v.jsonl"))
	mustIndex(t, dir, "v", src)
	topics, _ := vaswaniTopics(t, data)
	var queries []string
	for _, tp := range topics {
		queries = append(queries, tp.text)
	}
	c, err := OpenWith(dir, "v", Options{TitleHeuristics: true, IdleRelease: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkEquivalent(t, c, queries, []int{10, 50})
	for _, q := range queries {
		got, err := c.Search(context.Background(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		want, err := SearchLegacy(context.Background(), c, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameRanking(got, want); diff != "" {
			t.Fatalf("default ranking %q: %s", q, diff)
		}
	}
}
