package local

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// TestFastIndexMatchesBleveIndex: an index of shared paragraphs built
// with the fast path holds what the same index built from Bleve's token
// streams holds: the same terms with the same document counts in every
// indexed field, the same stored values, and the same scores for the same
// queries (scores use the field lengths).
func TestFastIndexMatchesBleveIndex(t *testing.T) {
	shared := sharedPassages(t)
	var ps []passage
	for i := 0; i < len(shared); i += 5 {
		p := shared[i]
		p.ID = fmt.Sprint("d", i)
		p.Loc = fmt.Sprint("¶", i)
		ps = append(ps, p)
	}
	for i, s := range fastTricky {
		ps = append(ps, passage{ID: fmt.Sprint("k", i), Title: s, Text: fastTricky[(i+5)%len(fastTricky)], File: "k.txt", URL: "http://k/" + fmt.Sprint(i)})
	}
	base := lookupAnalyzers(newMapping())
	worker := base
	worker.en = withStemCache(base.en)
	if fastOf(worker.en) == nil || fastOf(base.en) != nil {
		t.Fatal("expected the worker, not the base analyser, to have the fast path")
	}
	build := func(name string, an analyzers) bleve.Index {
		idx, err := bleve.New(filepath.Join(t.TempDir(), name), newMapping())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idx.Close() })
		// One batch, one segment: the dictionaries of an index being
		// merged in the background are not comparable.
		b := idx.NewBatch()
		for _, p := range ps {
			if err := b.IndexAdvanced(an.build(p).doc); err != nil {
				t.Fatal(err)
			}
		}
		if err := idx.Batch(b); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	want, got := build("bleve", base), build("fast", worker)

	dict := func(idx bleve.Index, field string) string {
		d, err := idx.FieldDict(field)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		var sb strings.Builder
		for e, err := d.Next(); e != nil || err != nil; e, err = d.Next() {
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "%q %d\n", e.Term, e.Count)
		}
		return sb.String()
	}
	for _, field := range []string{fieldBody, fieldTitle, fieldFile} {
		if w, g := dict(want, field), dict(got, field); w != g {
			t.Fatalf("field %s: terms differ (%d vs %d bytes of listing)", field, len(w), len(g))
		} else if field == fieldBody && strings.Count(w, "\n") < 1000 {
			t.Fatalf("only %d body terms", strings.Count(w, "\n"))
		}
	}
	stored := func(idx bleve.Index, id string) string {
		doc, err := idx.Document(id)
		if err != nil || doc == nil {
			t.Fatalf("document %s: %v", id, err)
		}
		var sb strings.Builder
		doc.VisitFields(func(f index.Field) { fmt.Fprintf(&sb, "%s=%q;", f.Name(), f.Value()) })
		return sb.String()
	}
	for i, p := range ps {
		if i%7 != 0 {
			continue
		}
		if w, g := stored(want, p.ID), stored(got, p.ID); w != g {
			t.Fatalf("document %s stored\n%s\nwant\n%s", p.ID, g, w)
		}
	}
	// Every hit with its score: two builds of one index number documents
	// in a batch's map order, which changes the order scores are summed in
	// (the last bits) and the order of equal scores.
	search := func(idx bleve.Index, q, field string) map[string]float64 {
		mq := bleve.NewMatchQuery(q)
		mq.SetField(field)
		res, err := idx.Search(bleve.NewSearchRequestOptions(mq, len(ps), 0, false))
		if err != nil {
			t.Fatal(err)
		}
		hits := make(map[string]float64, len(res.Hits))
		for _, h := range res.Hits {
			hits[h.ID] = h.Score
		}
		return hits
	}
	hits := 0
	for i := 0; i < len(ps); i += 13 {
		for _, field := range []string{fieldBody, fieldTitle} {
			words := strings.Fields(ps[i].Text)
			q := ps[i].Title + " " + strings.Join(words[:min(8, len(words))], " ")
			w, g := search(want, q, field), search(got, q, field)
			hits += len(w)
			if len(g) != len(w) {
				t.Fatalf("query %q on %s: %d hits, want %d", q, field, len(g), len(w))
			}
			for id, ws := range w {
				if gs, ok := g[id]; !ok || math.Abs(gs-ws) > 1e-12*math.Max(1, ws) {
					t.Fatalf("query %q on %s: %s scores %v, want %v", q, field, id, gs, ws)
				}
			}
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d hits", hits)
	}
	t.Logf("%d passages, %d hits compared", len(ps), hits)
}
