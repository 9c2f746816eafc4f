package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
)

// twice repeats a script so one world can answer the question twice.
func twice(s *fakellm.Script) *fakellm.Script {
	return &fakellm.Script{
		Steps:  append(append([]string{}, s.Steps...), s.Steps...),
		Judges: append(append([]string{}, s.Judges...), s.Judges...),
	}
}

// citingScript is the case study with an answer that cites the web page
// [2]: the context holds [1] the local Sørensen passage, [2] Carsten Olsen
// and [3] pH from the web.
func citingScript() *fakellm.Script {
	s := caseStudyScript()
	s.Steps[2] = "Thought: I now know the final answer to the original question\nFinal Answer: Carsten Olsen died in 1974 [2].\nSelf-Evaluation: CORRECT"
	return s
}

func exportMD(t *testing.T, w *world, id string) string {
	t.Helper()
	path := filepath.Join(w.home, "export-"+id+".md")
	if _, errOut, code := w.run("sessions", "export", id, "--format", "md", "-o", path); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The sources under an answer carry the numbers the answer cites, cited
// first, the rest of the context marked as not cited; a local passage has
// one name in the text output, the stored session and the export.
func TestSourcesNumberedAsCitedAndOnePassageName(t *testing.T) {
	w := newWorld(t, twice(citingScript()))
	out, errOut, code := w.run(w.askArgs(caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sources := out[strings.Index(out, "Sources:"):]
	re := regexp.MustCompile(`(?s)^Sources:\n  \[2\] Carsten Olsen - Wikipedia \[WEB searxng\] https://en\.wikipedia\.org/wiki/Carsten_Olsen\n` +
		`        “Carsten Olsen \(1891–1974\)[^\n]*”\n` + // the sentence supporting the claim (evidence)
		`Also in the context, not cited:\n  \[1\] S\. P\. L\. Sørensen \[LOCAL wiki\] \S*/sorensen\.md#1 \(byte 0\)\n` +
		`  \[3\] pH - Wikipedia \[WEB searxng\] https://en\.wikipedia\.org/wiki/PH\n`)
	if !re.MatchString(sources) {
		t.Errorf("sources not numbered as cited:\n%s", sources)
	}

	js, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, js)
	final := payloadsOf[engine.Final](evs)[0]
	if got := final.SourceNums; len(got) != 3 || got[0] != 2 || got[1] != 1 || got[2] != 3 || len(final.Citations) != 1 || final.Citations[0] != 2 {
		t.Errorf("final source_nums %v citations %v, want [2 1 3] and [2]", got, final.Citations)
	}
	id := evs[0].Session
	shown, _, _ := w.run("sessions", "show", id)
	md := exportMD(t, w, id)
	for name, text := range map[string]string{"ask": out, "sessions show": shown, "export": md} {
		if strings.Contains(text, "sorensen.md#0") {
			t.Errorf("%s names the passage sorensen.md#1 also as sorensen.md#0:\n%s", name, text)
		}
		if !strings.Contains(text, "sorensen.md#1") {
			t.Errorf("%s does not name the passage sorensen.md#1", name)
		}
	}
	if !regexp.MustCompile("### Sources\n\n- \\[2\\] \\*\\*Carsten Olsen - Wikipedia\\*\\*").MatchString(md) ||
		!regexp.MustCompile("### Also in the context\n\n- \\[1\\] \\*\\*S\\. P\\. L\\. Sørensen\\*\\*").MatchString(md) {
		t.Errorf("export sources not numbered as cited:\n%s", md)
	}
}

// Web results served from the cache, on a repeated question or an offline
// re-run, are marked cached with the time they were fetched, in events,
// text output and the export; fresh results are not.
func TestCachedWebResultsAreMarked(t *testing.T) {
	script := caseStudyScript()
	w := newWorld(t, &fakellm.Script{
		Steps:  append(append(append([]string{}, script.Steps...), script.Steps...), script.Steps...),
		Judges: append(append(append([]string{}, script.Judges...), script.Judges...), script.Judges...),
	})
	before := time.Now().UTC().Add(-time.Second)
	first, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text, errOut, code := w.run(w.askArgs(caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if w.search.Requests() != 1 {
		t.Fatalf("%d web requests; the second run should be served by the cache", w.search.Requests())
	}
	firstEvs := parseEvents(t, first)
	rerun, errOut, code := w.run("sessions", "rerun", firstEvs[0].Session, "--offline", "--json")
	if code != 0 {
		t.Fatalf("rerun: %s", errOut)
	}
	webDocs := func(evs []engine.Event) []engine.Document {
		var out []engine.Document
		for _, e := range payloadsOf[engine.Retrieval](evs) {
			if strings.HasPrefix(e.Source, "web:") {
				out = append(out, e.Docs...)
			}
		}
		return out
	}
	for _, d := range webDocs(firstEvs) {
		if d.Cached || !d.CachedAt.IsZero() {
			t.Errorf("a fresh result is marked cached: %+v", d)
		}
	}
	if strings.Contains(first, `"cached"`) {
		t.Error("the first run's events mention cached documents")
	}
	again := parseEvents(t, rerun)
	docs := webDocs(again)
	if len(docs) == 0 {
		t.Fatal("the offline re-run has no web documents")
	}
	for _, d := range docs {
		if !d.Cached || d.CachedAt.Before(before) || d.CachedAt.After(time.Now().Add(time.Second)) {
			t.Errorf("offline re-run document %s: cached %v at %v, want cached at the first run's time (after %v)", d.ID, d.Cached, d.CachedAt, before)
		}
	}
	if !strings.Contains(rerun, `"cached":true`) || !strings.Contains(rerun, `"cached_at":"`) {
		t.Error("the offline re-run's JSON events lack cached/cached_at")
	}
	if !regexp.MustCompile(`\[2\] WEB searxng: 2 documents for "[^"]+" \(cached, \d+ s old\)`).MatchString(text) {
		t.Errorf("the repeated run's text output does not mark the cached search:\n%s", text)
	}
	if !regexp.MustCompile(`https://en\.wikipedia\.org/wiki/Carsten_Olsen · cached, \d+ s old`).MatchString(text) {
		t.Errorf("the repeated run's sources are not marked cached:\n%s", text)
	}
	md := exportMD(t, w, again[0].Session)
	if !strings.Contains(md, "from the web cache") || !regexp.MustCompile(`cached, \d+ s old`).MatchString(md) {
		t.Errorf("the export of the offline re-run does not mark cached results:\n%s", md)
	}
	if md := exportMD(t, w, firstEvs[0].Session); strings.Contains(md, "cached,") || strings.Contains(md, "web cache") {
		t.Errorf("the export of the first run marks fresh results as cached")
	}
}

// A blocked web search, an answer cut at the size limit and a
// decompression bomb are said as such — in the retrieval event, the text
// output and the stored session — never as "0 documents".
func TestBlockedAndTruncatedWebSearchesAreNotEmpty(t *testing.T) {
	cases := []struct {
		mode    fakesearch.Mode
		outcome string
		line    string
		note    string
	}{
		{fakesearch.ModeBlocked429, engine.OutcomeBlocked, `WEB searxng: search blocked for "Danish plant ecologist who assisted Sørensen" — no documents`, "HTTP 429"},
		{fakesearch.ModeTruncated, engine.OutcomeTruncated, `WEB searxng: answer truncated at the size limit for "Danish plant ecologist who assisted Sørensen" — no documents could be read`, "8 MiB"},
		{fakesearch.ModeGzipBomb, engine.OutcomeTruncated, `WEB searxng: answer truncated at the size limit for "Danish plant ecologist who assisted Sørensen" — no documents could be read`, "after decompression"},
	}
	for _, c := range cases {
		t.Run(string(c.mode), func(t *testing.T) {
			w := newWorld(t, twice(caseStudyScript()))
			w.search.SetMode(c.mode)
			t0 := time.Now()
			text, errOut, code := w.run(w.askArgs(caseQuestion)...)
			t.Logf("%s: text run in %v", c.mode, time.Since(t0))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(text, c.line) {
				t.Errorf("text output lacks %q:\n%s", c.line, text)
			}
			if strings.Contains(text, "WEB searxng: 0 documents") {
				t.Errorf("text output reports the failed search as 0 documents:\n%s", text)
			}
			js, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			evs := parseEvents(t, js)
			var web *engine.Retrieval
			for _, e := range payloadsOf[engine.Retrieval](evs) {
				if strings.HasPrefix(e.Source, "web:") {
					web = &e
				}
			}
			if web == nil {
				t.Fatalf("no web retrieval event")
			}
			if web.Outcome != c.outcome || !strings.Contains(web.Note, c.note) || len(web.Docs) != 0 {
				t.Errorf("web retrieval outcome %q note %q docs %d; want %q with %q", web.Outcome, web.Note, len(web.Docs), c.outcome, c.note)
			}
			obs := payloadsOf[engine.Observation](evs)[1]
			if obs.Source != "local:wiki" || !strings.Contains(obs.Note, "web unavailable") {
				t.Errorf("observation %+v", obs)
			}
			shown, _, _ := w.run("sessions", "show", evs[0].Session)
			if !strings.Contains(shown, c.line) {
				t.Errorf("sessions show lacks %q:\n%s", c.line, shown)
			}
		})
	}
}
