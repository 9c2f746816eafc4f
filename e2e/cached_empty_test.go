package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
)

// A web answer served from the cache is marked cached wherever it is shown,
// an empty one too: the retrieval event ("cached": true), the text output,
// `sessions show` and the Markdown export. A fresh empty answer is not.
func TestCachedEmptyWebAnswerIsMarked(t *testing.T) {
	w := newWorld(t, twice(caseStudyScript()))
	w.search.SetMode(fakesearch.ModeEmpty)
	first, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text, errOut, code := w.run(w.askArgs(caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := w.search.Requests(); n != 1 {
		t.Fatalf("%d web requests; the second run should be answered by the cache", n)
	}
	// The wire form, as a script reads it.
	type retrieval struct {
		Type   string            `json:"type"`
		Source string            `json:"source"`
		Cached bool              `json:"cached"`
		Docs   []json.RawMessage `json:"docs"`
	}
	webRetrieval := func(out string) retrieval {
		for _, l := range strings.Split(out, "\n") {
			var r retrieval
			if json.Unmarshal([]byte(l), &r) == nil && r.Type == "retrieval" && strings.HasPrefix(r.Source, "web:") {
				return r
			}
		}
		t.Fatalf("no web retrieval in:\n%s", out)
		return retrieval{}
	}
	firstEvs := parseEvents(t, first)
	if r := webRetrieval(first); r.Cached || len(r.Docs) != 0 {
		t.Errorf("the fresh empty answer: cached %v, %d docs", r.Cached, len(r.Docs))
	}
	if strings.Contains(first, `"cached"`) {
		t.Error("the first run's events say cached")
	}
	const fresh = `WEB searxng: 0 documents for "Danish plant ecologist who assisted Sørensen"`
	cachedLine := fresh + " (cached, no request sent)"
	if !strings.Contains(text, cachedLine) {
		t.Errorf("the repeated run's text output does not mark the cached empty answer (want %q):\n%s", cachedLine, text)
	}
	list, _, _ := w.run("sessions", "list", "--json")
	second := strings.SplitN(strings.SplitN(list, `"id":"`, 2)[1], `"`, 2)[0] // newest first
	js, _, _ := w.run("sessions", "show", second, "--json")
	if r := webRetrieval(js); !r.Cached || len(r.Docs) != 0 {
		t.Errorf("the cached empty answer's retrieval event: cached %v, %d docs", r.Cached, len(r.Docs))
	}
	if !strings.Contains(js, `"cached":true`) {
		t.Error(`the retrieval event lacks "cached":true`)
	}
	if shown, _, _ := w.run("sessions", "show", second); !strings.Contains(shown, cachedLine) {
		t.Errorf("sessions show does not mark the cached empty answer:\n%s", shown)
	}
	if md := exportMD(t, w, second); !strings.Contains(md, "the web cache held an empty answer") {
		t.Errorf("the export does not mark the cached empty answer:\n%s", md)
	}
	if md := exportMD(t, w, firstEvs[0].Session); strings.Contains(md, "web cache") {
		t.Error("the export of the fresh run says web cache")
	}
}
