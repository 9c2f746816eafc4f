package ui

import (
	"strings"
	"testing"
)

// A damaged corpus is listed as damaged, with the sentence saying what to
// do, and the others as usual.
func TestCorporaScreenShowsDamagedCorpus(t *testing.T) {
	problem := `corpus "old" is damaged (its segment file 000000000002.zap is missing); delete it with ` + "`prefrag corpora rm old`" + ` and index its folders again`
	h := newHarness(t, withSize(160, 24), func(h *harness, _ *Deps) {
		h.corpora.list = append(h.corpora.list, CorpusInfo{Name: "old", SizeBytes: 65_000, Problem: problem})
	})
	h.keys("tab", "3")
	screen := h.waitFor("Corpora (3)", "old", "damaged", "prefrag corpora rm old")
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, " old ") && (!strings.Contains(line, "?") || !strings.Contains(line, "damaged")) {
			t.Errorf("the damaged row: %q", line)
		}
		if strings.Contains(line, "notes") && !strings.Contains(line, "118") {
			t.Errorf("the healthy row: %q", line)
		}
	}
}
