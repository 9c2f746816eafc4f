package ui

import (
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// A stop of the stepper that is not a step is named by what it is, never
// "step 0".
func TestNoteStopNames(t *testing.T) {
	for _, c := range []struct {
		p    engine.Payload
		want string
	}{
		{engine.Gate{}, "retrieval gate"},
		{engine.Rewrite{}, "rewritten question"},
		{engine.Refinement{}, "observation refinement"},
		{engine.ThreadContext{}, "thread context"},
		{engine.Unknown{Type: "future"}, "future"},
	} {
		if got := noteStop(c.p); got != c.want {
			t.Errorf("noteStop(%T) = %q, want %q", c.p, got, c.want)
		}
	}
}
