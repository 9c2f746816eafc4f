package local

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/sources/local/bm25"
)

// TestBlockBoundsBoundEveryPosting: on the long lists of a Zipf corpus,
// every posting's term score is at most its block's bound, a block's bound
// is within 1/255 of the list's largest score of the block's own largest,
// and blocks hold about blockPostings postings.
func TestBlockBoundsBoundEveryPosting(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	syntheticCorpus(t, filepath.Join(src, "c.jsonl"), 3000)
	mustIndex(t, dir, "z", src)
	c, err := OpenWith(dir, "z", Options{IdleRelease: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h, err := c.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer c.release(h)
	segs, done := snapshotSegments(t, h)
	defer done()
	avg := bm25.Collection{N: uint64(h.stats.Documents), TotalLength: uint64(h.stats.BodyTokens)}.AvgLength()
	p := bm25.Default
	checked := 0
	var common []string
	for i := 0; i < 12; i++ {
		common = append(common, word(i))
	}
	for _, qt := range analyzeQuery(h, strings.Join(common, " ")) {
		term := qt.term
		for _, s := range segs {
			d, err := s.Segment().Dictionary(fieldBody)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := d.PostingsList([]byte(term), s.Deleted(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if pl.Count() < 256 {
				continue
			}
			docs := uint64(s.FullSize())
			b := new(blockBounds)
			if err := b.compute(pl, docs, p, avg); err != nil {
				t.Fatal(err)
			}
			if per := float64(pl.Count()) / float64(len(b.q)); per < blockPostings/4 || per > blockPostings*2 {
				t.Errorf("%s: %.0f postings a block", term, per)
			}
			maxima := make([]float64, len(b.q))
			it := pl.Iterator(true, true, false, nil)
			for {
				post, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				if post == nil {
					break
				}
				s := p.TermScore(post.Frequency(), lengthFromNorm(post.Norm()), avg)
				if bound := b.at(post.Number()); s > bound {
					t.Fatalf("%s: posting %d scores %v above its block's bound %v", term, post.Number(), s, bound)
				}
				i := post.Number() >> b.shift
				maxima[i] = max(maxima[i], s)
				checked++
			}
			for i, m := range maxima {
				if bound := b.at(uint64(i) << b.shift); bound-m > b.all/255*(1+1e-12) {
					t.Fatalf("%s block %d: bound %v for a largest score %v (list's %v)", term, i, bound, m, b.all)
				}
			}
			if b.at(docs<<1) != 0 {
				t.Errorf("%s: a bound past the segment", term)
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d postings checked", checked)
	}
}

func TestQuantizeIsTheLeastBound(t *testing.T) {
	for _, all := range []float64{1e-300, 0.3, 1, 2.2, 1e10} {
		for _, f := range []float64{0, 1e-9, 0.001, 0.2, 1.0 / 3, 0.5, 0.99, 0.999999, 1} {
			m := all * f
			q := quantize(m, all)
			if all*quantum[q] < m {
				t.Fatalf("quantize(%v, %v) = %d: %v is below", m, all, q, all*quantum[q])
			}
			if q > 0 && all*quantum[q-1] >= m && m > 0 {
				t.Fatalf("quantize(%v, %v) = %d: %d bounds it too", m, all, q, q-1)
			}
		}
	}
	if quantum[255] != 1 || quantize(math.Nextafter(1, 0), 1) != 255 {
		t.Fatal("the top quantum is not the list's largest score")
	}
}

func TestBlockShift(t *testing.T) {
	for _, c := range []struct {
		docs, count uint64
		want        uint8
	}{{1000, 1000, 7}, {1 << 20, 1 << 13, 14}, {1000, 0, 0}, {100, 99, 7}, {1 << 20, 1 << 20, 7}, {1 << 16, 1 << 15, 8}} {
		if got := blockShift(c.docs, c.count); got != c.want {
			t.Errorf("blockShift(%d, %d) = %d, want %d", c.docs, c.count, got, c.want)
		}
	}
}
