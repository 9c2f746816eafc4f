package export

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/store"
)

// The Markdown and HTML exports say how many documents carried from the
// thread a refinement condensed, in the text output's words.
func TestExportsRefinementThreadDocs(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	evs := []engine.Event{
		{Session: "s", Seq: 1, Time: at, Payload: engine.SessionStart{Question: "q?"}},
		{Session: "s", Seq: 2, Time: at, Step: 1, Payload: engine.Thought{Text: "Search."}},
		{Session: "s", Seq: 3, Time: at, Step: 2, Payload: engine.Refinement{BeforeChars: 9000, AfterChars: 3000, Steps: []int{1}, ThreadDocs: 4}},
		{Session: "s", Seq: 4, Time: at, Payload: engine.Final{Answer: "A."}},
	}
	rec := &store.Record{Session: store.Session{ID: "s", Question: "q?", Started: at}, Events: evs}
	var md, page bytes.Buffer
	if err := Markdown(&md, rec); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, rec); err != nil {
		t.Fatal(err)
	}
	const want = "To fit the context, the observations of step 1 (with 4 documents carried from the thread) were cut from 9000 to 3000 characters."
	if !strings.Contains(md.String(), "**Refinement.** "+want) {
		t.Errorf("Markdown lacks %q:\n%s", want, md.String())
	}
	if !strings.Contains(page.String(), want) {
		t.Errorf("HTML lacks %q:\n%s", want, page.String())
	}
}
