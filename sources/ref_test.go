package sources

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRef(t *testing.T) {
	cases := []struct {
		name string
		d    Document
		want string
	}{
		{"text passage: the id, the byte offset in words", Document{ID: "notes/a.md#1", Locator: "notes/a.md#0"}, "notes/a.md#1 (byte 0)"},
		{"later passage", Document{ID: "notes/a.md#3", Locator: "notes/a.md#2048"}, "notes/a.md#3 (byte 2048)"},
		{"pdf page", Document{ID: "p.pdf#5", Locator: "p.pdf#p3"}, "p.pdf#5 (page 3)"},
		{"epub chapter", Document{ID: "b.epub#7", Locator: "b.epub#ch2"}, "b.epub#7 (chapter 2)"},
		{"jsonl with id: locator is the id", Document{ID: "Q42#2", Locator: "Q42#2"}, "Q42#2"},
		{"jsonl line without id", Document{ID: "d.jsonl:3", Locator: "d.jsonl#120"}, "d.jsonl:3 (byte 120)"},
		{"locator elsewhere", Document{ID: "X#0", Locator: "wiki/w.jsonl#8812"}, "X#0 (at wiki/w.jsonl#8812)"},
		{"web result", Document{ID: "https://a.example/x#frag", URL: "https://a.example/x#frag", Locator: "https://a.example/x#frag"}, "https://a.example/x#frag"},
		{"no locator", Document{ID: "kafka#1"}, "kafka#1"},
		{"url only", Document{URL: "https://a.example/"}, "https://a.example/"},
		{"nothing", Document{}, ""},
	}
	for _, c := range cases {
		if got := c.d.Ref(); got != c.want {
			t.Errorf("%s: Ref() = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCacheNote(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		d    Document
		want string
	}{
		{Document{}, ""},
		{Document{Cached: true}, "cached"},
		{Document{Cached: true, CachedAt: at.Add(-30 * time.Second)}, "cached, 30 s old"},
		{Document{Cached: true, CachedAt: at.Add(-12 * time.Minute)}, "cached, 12 min old"},
		{Document{Cached: true, CachedAt: at.Add(-3 * time.Hour)}, "cached, 3 h old"},
		{Document{Cached: true, CachedAt: at.Add(-72 * time.Hour)}, "cached, 3 days old"},
		{Document{Cached: true, CachedAt: at.Add(time.Hour)}, "cached, 0 s old"},
	}
	for _, c := range cases {
		if got := c.d.CacheNote(at); got != c.want {
			t.Errorf("%+v: %q, want %q", c.d, got, c.want)
		}
	}
}

func TestTruncatedError(t *testing.T) {
	var err error = &TruncatedError{Engine: "web:duckduckgo", Limit: 8 << 20, Results: 2}
	if !errors.Is(err, ErrTruncated) || errors.Is(err, ErrBlocked) {
		t.Errorf("errors.Is wrong for %v", err)
	}
	if got := err.Error(); got != "web:duckduckgo's answer was larger than 8 MiB (after decompression) and was cut; 2 result(s) were read, later ones are lost" {
		t.Errorf("message %q", got)
	}
}

// Ref reads locators, which come from indexed files: it never panics and
// always starts with the document's id.
func FuzzRef(f *testing.F) {
	f.Add("notes/a.md#1", "notes/a.md#0", "")
	f.Add("p.pdf#5", "p.pdf#p3", "")
	f.Add("b.epub#7", "b.epub#ch", "")
	f.Add("#", "#", "https://x/")
	f.Fuzz(func(t *testing.T, id, loc, url string) {
		got := Document{ID: id, Locator: loc, URL: url}.Ref()
		if id != "" && !strings.HasPrefix(got, id) {
			t.Errorf("Ref() = %q does not start with the id %q", got, id)
		}
	})
}

func TestDisplayTitle(t *testing.T) {
	for _, tc := range []struct {
		d    Document
		want string
	}{
		{Document{Title: "Gulls", ID: "g.pdf#4", Locator: "g.pdf#p3"}, "Gulls, p. 3"},
		{Document{Title: "Notes", ID: "n.md#2", Locator: "n.md#120"}, "Notes"},
		{Document{Title: "Book — Ch", ID: "b.epub#2", Locator: "b.epub#ch2"}, "Book — Ch"},
		{Document{Title: "Web", URL: "https://x.org/a#p1"}, "Web"},
		{Document{Title: "Web", URL: "https://x.org/a#p1", Locator: "https://x.org/a#p1"}, "Web"},
		{Document{Title: "", Locator: "g.pdf#p3"}, ""},
		{Document{Title: "Odd", Locator: "g.pdf#px"}, "Odd"},
	} {
		if got := tc.d.DisplayTitle(); got != tc.want {
			t.Errorf("DisplayTitle(%+v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
