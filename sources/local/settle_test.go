package local

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// diskSegments counts the non-empty segments a fresh open of the corpus
// finds.
func diskSegments(t *testing.T, dir, name string) int {
	t.Helper()
	c := mustOpen(t, dir, name)
	defer c.Close()
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
	n := 0
	for _, s := range r.(*scorch.IndexSnapshot).Segments() {
		if s.Count() > 0 {
			n++
		}
	}
	return n
}

// TestIndexSettlesSegments: an ingest of many batches ends with the index
// merged down to SettleSegments segments, build after build, with the
// counters and ids of an unmerged build.
func TestIndexSettlesSegments(t *testing.T) {
	src := t.TempDir()
	syntheticCorpus(t, filepath.Join(src, "c.jsonl"), 1500)
	// Many small files too: the writer's lookups run while a batch is in
	// flight.
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("File %d.\n\n%s", i, strings.Repeat(fmt.Sprintf("word%d river ", i), 90))
	}
	writeFiles(t, src, files)

	// Bleve's own merger, held back, leaves a batch a segment: more than
	// the target, as a large corpus has.
	for _, target := range []int{2, 1} {
		t.Run(fmt.Sprint(target), func(t *testing.T) {
			wo := holdMerges(WriterOptions{BatchPassages: 50, SettleSegments: target})
			var ids []string
			for build := 0; build < 2; build++ {
				dir := t.TempDir()
				rep := mustIndexWith(t, wo, dir, "s", src)
				if rep.Passages < 1500 || rep.Segments != target {
					t.Fatalf("build %d: %d passages, report says %d segments, want %d", build, rep.Passages, rep.Segments, target)
				}
				if n := diskSegments(t, dir, "s"); n != target {
					t.Fatalf("build %d: reopened corpus has %d segments, want %d", build, n, target)
				}
				// The merged-away segment files are gone.
				if zaps, _ := filepath.Glob(filepath.Join(dir, "s", "store", "*.zap")); len(zaps) != target {
					t.Errorf("build %d: %d segment files on disk, want %d", build, len(zaps), target)
				}
				checkCounters(t, dir, "s")
				got := allIDs(t, dir, "s")
				if ids != nil && fmt.Sprint(got) != fmt.Sprint(ids) {
					t.Fatalf("builds differ: %d vs %d ids", len(got), len(ids))
				}
				ids = got
				// A run with nothing new keeps the count.
				if rep := mustIndexWith(t, wo, dir, "s", src); rep.Unchanged != rep.Files || rep.Segments != target {
					t.Fatalf("second run: %+v", rep)
				}
			}
		})
	}
}
