package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

func TestRenderRetrievalOutcomesAndCache(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	web := sources.Document{ID: "https://a.example/", URL: "https://a.example/", Title: "A", Source: "web:searxng"}
	cached := web
	cached.Cached, cached.CachedAt = true, at.Add(-3*time.Hour)
	cases := []struct {
		name      string
		ev        engine.Retrieval
		want, not []string
	}{
		{"blocked", engine.Retrieval{Outcome: engine.OutcomeBlocked, Note: "blocked: HTTP 429"}, []string{"search blocked", "no documents"}, []string{"0 document"}},
		{"truncated empty", engine.Retrieval{Outcome: engine.OutcomeTruncated}, []string{"answer truncated", "no documents could be read"}, []string{"0 document"}},
		{"truncated partial", engine.Retrieval{Outcome: engine.OutcomeTruncated, Docs: []sources.Document{web}}, []string{"1 document for", "answer truncated, later results lost"}, nil},
		{"unavailable", engine.Retrieval{Outcome: engine.OutcomeUnavailable}, []string{"unavailable", "no documents"}, []string{"0 document"}},
		{"fresh", engine.Retrieval{Docs: []sources.Document{web}}, []string{"1 document for"}, []string{"cached"}},
		{"cached", engine.Retrieval{Docs: []sources.Document{cached}}, []string{"1 document for", "(cached, 3 h old)"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.ev
			p.Source, p.Query = "web:searxng", "q"
			ev := engine.Event{Step: 2, Time: at, Payload: p}
			var b bytes.Buffer
			textRenderer{}.render(&b, ev)
			out := b.String()
			for _, s := range c.want {
				if !strings.Contains(out, s) {
					t.Errorf("%q lacks %q", out, s)
				}
			}
			for _, s := range c.not {
				if strings.Contains(out, s) {
					t.Errorf("%q has %q", out, s)
				}
			}
		})
	}
}

func TestRenderSourcesNumberedAsCited(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	local := sources.Document{ID: "docs/s.md#1", Locator: "docs/s.md#0", Title: "Sørensen", Source: "local:wiki"}
	web := sources.Document{ID: "https://a.example/", URL: "https://a.example/", Locator: "https://a.example/", Title: "Olsen", Source: "web:searxng",
		Cached: true, CachedAt: at.Add(-2 * 24 * time.Hour)}
	ev := engine.Event{Time: at, Payload: engine.Final{Answer: "1974 [2].", Citations: []int{2}, Sources: []sources.Document{web, local}, SourceNums: []int{2, 1}}}
	var b bytes.Buffer
	textRenderer{}.render(&b, ev)
	out := b.String()
	want := "Sources:\n  [2] Olsen [WEB searxng] https://a.example/ · cached, 2 days old\n" +
		"Also in the context, not cited:\n  [1] Sørensen [LOCAL wiki] docs/s.md#1 (byte 0)\n"
	if !strings.Contains(out, want) {
		t.Errorf("sources block:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(out, "s.md#0") {
		t.Errorf("the locator is shown as if it were a passage id:\n%s", out)
	}

	ev.Payload = engine.Final{Answer: "No idea.", Sources: []sources.Document{local, web}, SourceNums: []int{1, 2}}
	b.Reset()
	textRenderer{}.render(&b, ev)
	if out := b.String(); !strings.Contains(out, "the answer cites none") || !strings.Contains(out, "  [1] Sørensen") || !strings.Contains(out, "  [2] Olsen") {
		t.Errorf("uncited sources:\n%s", out)
	}
}
