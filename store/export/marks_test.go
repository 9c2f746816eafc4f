package export

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store"
)

// The Markdown export names a passage one way, numbers every source as the
// answer cites it, marks cached web results with their age and says when a
// search was blocked or cut rather than empty.
func TestMarkdownSourcesCacheAndFailedSearches(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	local := sources.Document{ID: "docs/sorensen.md#1", Locator: "docs/sorensen.md#0", Title: "Sørensen", Source: "local:wiki", Score: 1.5}
	web := sources.Document{ID: "https://a.example/olsen", URL: "https://a.example/olsen", Locator: "https://a.example/olsen", Title: "Olsen", Source: "web:searxng",
		Score: 6, Cached: true, CachedAt: at.Add(-5 * time.Hour)}
	evs := []engine.Event{
		{Seq: 1, Time: at, Payload: engine.SessionStart{Question: "Q?"}},
		{Seq: 2, Time: at, Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "q1", Docs: []sources.Document{local}}},
		{Seq: 3, Time: at, Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{local.ID}, DocNums: []int{1}}},
		{Seq: 4, Time: at, Step: 2, Payload: engine.Retrieval{Source: "web:searxng", Query: "q2", Outcome: engine.OutcomeBlocked, Note: "web:searxng blocked the search: HTTP 429"}},
		{Seq: 5, Time: at, Step: 2, Payload: engine.Retrieval{Source: "web:searxng", Query: "q3", Outcome: engine.OutcomeTruncated, Note: "cut at 8 MiB"}},
		{Seq: 6, Time: at, Step: 2, Payload: engine.Retrieval{Source: "web:searxng", Query: "q4", Docs: []sources.Document{web}}},
		{Seq: 7, Time: at, Step: 2, Payload: engine.Observation{Source: "web:searxng", DocIDs: []string{web.ID}, DocNums: []int{2}}},
		{Seq: 8, Time: at, Payload: engine.Final{Answer: "1974 [2].", Citations: []int{2}, Sources: []sources.Document{web, local}, SourceNums: []int{2, 1}}},
	}
	rec := &store.Record{Session: store.Session{ID: "s", Question: "Q?", Started: at}, Events: evs}
	var b bytes.Buffer
	if err := Markdown(&b, rec); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"### Sources\n\n- [2] **Olsen** — web:searxng, <https://a.example/olsen>, cached, 5 h old\n",
		"### Also in the context\n\n- [1] **Sørensen** — local:wiki, `docs/sorensen.md#1 (byte 0)`\n",
		"**Searched web:searxng** for “q2”: the search was blocked, no documents (web:searxng blocked the search: HTTP 429).",
		"**Searched web:searxng** for “q3”: the answer was truncated at the size limit, no documents could be read (cut at 8 MiB).",
		"**Searched web:searxng** for “q4”: 1 document, from the web cache.",
		"- Olsen — <https://a.example/olsen>, score 6.00, cached, 5 h old",
		"- Sørensen — `docs/sorensen.md#1 (byte 0)`, score 1.50",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	for _, bad := range []string{"nothing came back", "`docs/sorensen.md#0`"} {
		if strings.Contains(md, bad) {
			t.Errorf("Markdown has %q:\n%s", bad, md)
		}
	}
}
