package trajectory

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// The TUI names a passage one way, numbers the final sources as the
// answer cites them, marks cached web results and says when a web search
// was blocked or cut instead of showing "0 documents".
func TestRenderSourcesMarks(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	local := sources.Document{ID: "docs/sorensen.md#1", Locator: "docs/sorensen.md#0", Title: "Sørensen", Text: "chemist", Source: "local:wiki", Score: 1.5}
	web := sources.Document{ID: "https://a.example/olsen", URL: "https://a.example/olsen", Locator: "https://a.example/olsen", Title: "Olsen", Text: "ecologist",
		Source: "web:searxng", Score: 6, Cached: true, CachedAt: at.Add(-3 * time.Hour)}
	tr := New()
	for _, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "Q?"}},
		{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "q1"}},
		{Step: 1, Time: at, Payload: engine.Retrieval{Source: "local:wiki", Query: "q1", Docs: []sources.Document{local}}},
		{Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{local.ID}, DocNums: []int{1}}},
		{Step: 2, Payload: engine.Action{Tool: "Search_Engine", Query: "q2"}},
		{Step: 2, Time: at, Payload: engine.Retrieval{Source: "web:searxng", Query: "q2", Outcome: engine.OutcomeBlocked, Note: "blocked: HTTP 429"}},
		{Step: 2, Payload: engine.Notice{Source: "web:searxng", Message: "web:searxng blocked the search: HTTP 429"}},
		{Step: 2, Time: at, Payload: engine.Retrieval{Source: "web:searxng", Query: "q3", Outcome: engine.OutcomeTruncated, Note: "cut"}},
		{Step: 2, Time: at, Payload: engine.Retrieval{Source: "web:searxng", Query: "q4", Docs: []sources.Document{web}}},
		{Step: 2, Payload: engine.Observation{Source: "web:searxng", DocIDs: []string{web.ID}, DocNums: []int{2}}},
		{Time: at, Payload: engine.Final{Answer: "1974 [2].", Citations: []int{2}, Sources: []sources.Document{web, local}, SourceNums: []int{2, 1}}},
	} {
		tr.Apply(ev)
	}
	out := plainRenderer().Render(tr, View{Width: 100, Upto: -1, ShowFinal: true, Expanded: map[string]bool{"b0/obs/0": true, "b1/obs/0": true}})
	screen := ansi.Strip(out.Content())
	for _, want := range []string{
		"blocked — no documents",
		"answer truncated — no documents could be read",
		"1 document · cached, 3 h old",
		"docs/sorensen.md#1 (byte 0)",
		"from the web cache, fetched 2026-11-21 09:00 UTC",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if regexp.MustCompile(`\b0 documents?\b`).MatchString(screen) {
		t.Errorf("a failed search shows as 0 documents:\n%s", screen)
	}
	if strings.Contains(screen, "sorensen.md#0") {
		t.Errorf("the passage shows as sorensen.md#0 somewhere:\n%s", screen)
	}
	final := screen[strings.Index(screen, "Final answer"):]
	src := regexp.MustCompile(`(?s)Sources\n\s+\[2\] Olsen\n\s+https://a\.example/olsen · cached, 3 h old\nAlso in the context, not cited\n\s+\[1\] Sørensen\n\s+docs/sorensen\.md#1 \(byte 0\)`)
	if !src.MatchString(final) {
		t.Errorf("final sources not numbered as cited:\n%s", final)
	}
	checkWidth(t, out.Content(), 100)
}

// An empty answer of the web cache is shown as cached, not as a fresh
// "0 documents"; a fresh empty answer is not marked.
func TestRenderCachedEmptySearch(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tr := New()
	for _, ev := range []engine.Event{
		engine.Event{Payload: engine.SessionStart{Question: "Q?"}},
		engine.Event{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "q1"}},
		engine.Event{Step: 1, Time: at, Payload: engine.Retrieval{Source: "web:searxng", Query: "fresh query"}},
		engine.Event{Step: 2, Payload: engine.Action{Tool: "Search_Engine", Query: "q2"}},
		engine.Event{Step: 2, Time: at, Payload: engine.Retrieval{Source: "web:searxng", Query: "cached query", Cached: true}},
	} {
		tr.Apply(ev)
	}
	screen := ansi.Strip(plainRenderer().Render(tr, View{Width: 100, Upto: -1}).Content())
	if n := strings.Count(screen, "0 documents · cached, no request sent"); n != 1 {
		t.Errorf("%d searches marked cached, want 1 (the cached one):\n%s", n, screen)
	}
}
