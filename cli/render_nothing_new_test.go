package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// TestRenderNothingNew: a search that brought nothing new is printed as
// such, not as a judge's verdict.
func TestRenderNothingNew(t *testing.T) {
	no, web := false, "web:duckduckgo"
	var b bytes.Buffer
	newEventWriter(&b, false, false).write(engine.Event{Step: 2, Payload: engine.Selection{Status: &no, NextSource: &web, Source: "local:wiki", NothingNew: true,
		Analysis: "nothing new: 1 document retrieved was obtained before ([1]), so the judge was not asked"}})
	want := "[2] Nothing new: switching to web:duckduckgo — 1 document retrieved was obtained before ([1]), so the judge was not asked\n"
	if got := b.String(); got != want || strings.Contains(got, "Judge") {
		t.Errorf("got %q, want %q", got, want)
	}
}
