package local

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
)

// posting is one decoded posting.
type posting struct {
	doc, tf, dl uint64
}

// postings reads every posting of term in field, with its frequency and the
// document's field length.
func postings(ctx context.Context, r index.IndexReader, field, term string, buf []posting) ([]posting, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, true, true, false)
	if err != nil {
		return nil, err
	}
	defer tfr.Close()
	buf = buf[:0]
	var tfd index.TermFieldDoc
	for n := 0; ; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d, err := tfr.Next(&tfd)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return buf, nil
		}
		buf = append(buf, posting{doc: binary.BigEndian.Uint64(d.ID), tf: d.Freq, dl: lengthFromNorm(d.Norm)})
	}
}

// word returns a distinct made-up word that the en analyzer keeps as one
// token (no stop word, and stemming leaves one token).
func word(i int) string {
	var sb strings.Builder
	sb.WriteString("zq")
	for {
		sb.WriteByte(byte('a' + i%26))
		i /= 26
		if i == 0 {
			return sb.String()
		}
	}
}

func writeJSONL(t testing.TB, path string, recs []map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLengthFromNormIsExact checks that the field length recovered from
// Bleve's norms is the exact token count, for one-hit and many-hit terms and
// lengths up to well past the longest passage.
func TestLengthFromNormIsExact(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	lengths := []int{1, 2, 3, 7, 99, 100, 101, 255, 256, 399, 400, 1000, 4097}
	var recs []map[string]string
	want := make(map[string]uint64)
	next := 0
	for i, n := range lengths {
		words := []string{"common"}
		for j := 1; j < n; j++ {
			words = append(words, word(next)) // each used once: one-hit postings
			next++
		}
		id := fmt.Sprintf("len%d", i)
		recs = append(recs, map[string]string{"id": id, "text": strings.Join(words, " ")})
		want[id] = uint64(n)
	}
	// Split off: .jsonl lines over 400 words are cut, so index the long ones
	// as their own small collection of pieces and check those too.
	writeJSONL(t, filepath.Join(src, "l.jsonl"), recs)
	mustIndex(t, dir, "n", src)
	c := mustOpen(t, dir, "n")
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
	// Expected lengths: analyse the stored text of every passage.
	expect := func(id string) uint64 {
		d, err := storedDocument(r, id)
		if err != nil {
			t.Fatal(err)
		}
		return uint64(len(h.en.Analyze([]byte(d.Text))))
	}
	dict, err := r.FieldDict(fieldBody)
	if err != nil {
		t.Fatal(err)
	}
	defer dict.Close()
	checked := 0
	cache := make(map[string]uint64)
	for {
		e, err := dict.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		ps, err := postings(context.Background(), r, fieldBody, e.Term, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			id, _ := r.ExternalID(index.NewIndexInternalID(nil, p.doc))
			exp, ok := cache[id]
			if !ok {
				exp = expect(id)
				cache[id] = exp
			}
			if p.dl != exp {
				t.Fatalf("term %s doc %s: length from norm %d, analysed %d", e.Term, id, p.dl, exp)
			}
			checked++
		}
	}
	for id, n := range want {
		if n <= JSONLSplitWords {
			if cache[id] != n {
				t.Errorf("doc %s: length %d, want %d", id, cache[id], n)
			}
		}
	}
	if checked < 5000 {
		t.Errorf("checked only %d postings", checked)
	}
}

// TestScoresMatchFormula recomputes the BM25 score of every hit from first
// principles (token counts of the stored text) and compares.
func TestScoresMatchFormula(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	recs := []map[string]string{
		{"id": "d1", "text": "apple apple banana cherry"},
		{"id": "d2", "text": "banana split"},
		{"id": "d3", "text": "apple pie with cherry and cream and sugar"},
		{"id": "d4", "text": "nothing relevant here at all"},
	}
	writeJSONL(t, filepath.Join(src, "f.jsonl"), recs)
	mustIndex(t, dir, "f", src)
	c := mustOpen(t, dir, "f")
	docs, err := c.Search(context.Background(), "apple cherry apple", 10)
	if err != nil {
		t.Fatal(err)
	}
	// Tokens after the en analyzer (stop words "with", "and", "at", "all",
	// "here" removed): d1 4, d2 2, d3 5 (apple pie cherry cream sugar), d4 2
	// (noth relev)... computed below from the analyzer itself.
	h, _ := c.acquire()
	defer c.release(h)
	lens := map[string]float64{}
	tfs := map[string]map[string]float64{}
	total := 0.0
	for _, r := range recs {
		toks := h.en.Analyze([]byte(r["text"]))
		lens[r["id"]] = float64(len(toks))
		total += float64(len(toks))
		tfs[r["id"]] = map[string]float64{}
		for _, tk := range toks {
			tfs[r["id"]][string(tk.Term)]++
		}
	}
	n := float64(len(recs))
	avg := total / n
	score := func(id string) float64 {
		s := 0.0
		for term, qtf := range map[string]float64{"appl": 2, "cherri": 1} {
			df := 0.0
			for _, r := range recs {
				if tfs[r["id"]][term] > 0 {
					df++
				}
			}
			tf := tfs[id][term]
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += qtf * idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*lens[id]/avg))
		}
		return s
	}
	if len(docs) != 2 || docs[0].ID != "d1" || docs[1].ID != "d3" {
		t.Fatalf("hits = %v", ids(docs))
	}
	for _, d := range docs {
		if want := score(d.ID); math.Abs(d.Score-want) > 1e-12 {
			t.Errorf("%s: score %.15f, want %.15f", d.ID, d.Score, want)
		}
	}
}

// TestRankingIdenticalAcrossMerge indexes in several runs (several
// segments), ranks a set of queries, merges the index down to one segment,
// reopens it and ranks again: ids and scores must be identical to the bit.
func TestRankingIdenticalAcrossMerge(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewSource(7))
	vocab := []string{"river", "delta", "boat", "harbour", "ship", "cargo", "storm", "tide", "coast", "light",
		"house", "keeper", "island", "fog", "signal", "bell", "rock", "reef", "wreck", "anchor"}
	var recs []map[string]string
	for i := 0; i < 600; i++ {
		n := 3 + rng.Intn(25)
		var ws []string
		for j := 0; j < n; j++ {
			ws = append(ws, vocab[rng.Intn(len(vocab))])
		}
		text := strings.Join(ws, " ")
		if i%10 == 0 && i > 0 {
			text = recs[i-1]["text"] // exact duplicates: ties across segments
		}
		recs = append(recs, map[string]string{"id": fmt.Sprintf("p%04d", (i*7919)%600), "title": vocab[i%len(vocab)], "text": text})
	}
	wo := holdMerges(WriterOptions{SettleSegments: -1})
	// One file per run, one run per segment (a single run with many
	// batches lets Bleve's background merger fold them before we look).
	for part := 0; part < 4; part++ {
		p := filepath.Join(src, fmt.Sprintf("c%d.jsonl", part))
		writeJSONL(t, p, recs[part*150:(part+1)*150])
		mustIndexWith(t, wo, dir, "m", p)
	}

	queries := []string{"river boat", "storm at the coast?", "light house keeper", "fog bell rock reef", "anchor",
		"wreck of the ship in the storm", "cargo cargo ship", "island tide delta harbour signal"}
	rank := func() []string {
		c := mustOpen(t, dir, "m")
		defer c.Close()
		var out []string
		for _, q := range queries {
			docs, err := c.Search(context.Background(), q, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				out = append(out, fmt.Sprintf("%s %s %x", q, d.ID, math.Float64bits(d.Score)))
			}
		}
		return out
	}
	segments := func(idx bleve.Index) int {
		adv, _ := idx.Advanced()
		r, err := adv.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return len(r.(*scorch.IndexSnapshot).Segments())
	}
	before := rank()

	w, err := OpenWriter(dir, "m", wo)
	if err != nil {
		t.Fatal(err)
	}
	segsBefore := segments(w.idx)
	adv, _ := w.idx.Advanced()
	if err := adv.(*scorch.Scorch).ForceMerge(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	segsAfter := segments(w.idx)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if segsBefore < 4 || segsAfter != 1 {
		t.Fatalf("segments before merge %d, after %d: the test needs several, then one", segsBefore, segsAfter)
	}
	after := rank()
	if len(before) == 0 || strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Errorf("ranking changed across the merge:\nbefore %v\nafter  %v", before, after)
	}
}

// TestPruningMatchesExhaustive ranks random queries with MaxScore pruning
// and with every posting read: ids and scores must be identical.
func TestPruningMatchesExhaustive(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	queries := syntheticCorpus(t, filepath.Join(src, "c.jsonl"), 3000)
	mustIndex(t, dir, "p", src)
	for _, boost := range []float64{0, 0.5} {
		c, err := OpenWith(dir, "p", Options{TitleBoost: boost})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 5, 10} {
			for _, q := range queries[:100] {
				c.opts.Exhaustive = false
				fast, err := c.Search(context.Background(), q, k)
				if err != nil {
					t.Fatal(err)
				}
				c.opts.Exhaustive = true
				full, err := c.Search(context.Background(), q, k)
				c.opts.Exhaustive = false
				if err != nil {
					t.Fatal(err)
				}
				if len(fast) != len(full) {
					t.Fatalf("boost %v k %d %q: %d vs %d hits", boost, k, q, len(fast), len(full))
				}
				for i := range fast {
					if fast[i].ID != full[i].ID || fast[i].Score != full[i].Score {
						t.Fatalf("boost %v k %d %q hit %d: pruned %s %v, exhaustive %s %v", boost, k, q, i, fast[i].ID, fast[i].Score, full[i].ID, full[i].Score)
					}
				}
			}
		}
		c.Close()
	}
}
