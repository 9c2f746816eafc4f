package ui

import (
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// A stop of the stepper that is not a step is named by what it is, never
// "step 0".
func TestNoteStopNames(t *testing.T) {
	for typ, want := range map[string]string{
		engine.EventGate:       "retrieval gate",
		engine.EventRewrite:    "rewritten question",
		engine.EventRefinement: "observation refinement",
		"future":               "future",
	} {
		if got := noteStop(typ); got != want {
			t.Errorf("noteStop(%q) = %q, want %q", typ, got, want)
		}
	}
}
