package privacy

import (
	"testing"

	"github.com/prefrag/prefrag/sources/distinct"
)

// TestFalseAndTrueHolds runs the measurement on the shared data (skipped
// without it, and with -short) and holds the rates docs/web-and-privacy.md
// gives: run it with -v to see the table and every false hold.
func TestFalseAndTrueHolds(t *testing.T) {
	dir := SharedData()
	if dir == "" || testing.Short() {
		t.Skip("no shared/data beside the repository, or -short")
	}
	corpora, sets, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := Run(corpora, sets, 1)
	t.Log("\n" + rep.Text())
	for _, e := range rep.Examples(1000, true) {
		t.Log("false: " + e)
	}
	s := rep.Summarise()
	if all := s.All(); all.Queries < 10000 {
		t.Errorf("only %d query checks: the shared sets were not all read", all.Queries)
	}
	for _, b := range []struct {
		what  string
		t     Tally
		limit float64 // percent of the queries
	}{
		{"unrelated queries", s.Unrelated, 1},
		{"related questions", s.Related, 10},
		{"own questions", s.Own, 7},
		{"all", s.All(), 5},
	} {
		if r := pct(b.t.False, b.t.Queries); r > b.limit {
			t.Errorf("%s: false holds %.2f%% (%d of %d), over %.0f%%", b.what, r, b.t.False, b.t.Queries, b.limit)
		}
	}
	if n := s.FalseByKind[distinct.Identifier] + s.FalseByKind[distinct.Number]; n != 0 {
		t.Errorf("%d false holds on identifiers or numbers", n)
	}
	floor := map[string]float64{"identifier": 100, "number": 100, "name": 99, "6 words": 15, "8 words": 50, "10 words": 85}
	for _, p := range rep.Planted {
		if r := pct(p.Held, p.Tried); r < floor[p.Kind] {
			t.Errorf("%s, planted %s: %.1f%% held (%d of %d), under %.0f%%; missed e.g. %q", p.Corpus, p.Kind, r, p.Held, p.Tried, floor[p.Kind], p.Missed)
		}
	}
}
