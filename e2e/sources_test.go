package e2e

import (
	"github.com/prefrag/prefrag/engine"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Two corpora and the web: the preferred corpus first, the next corpus on a
// false judgement, the web when the model names it.
func TestThreeSources(t *testing.T) {
	script := &fakellm.Script{
		Steps: []string{
			"Thought: Who assisted Sørensen?\nAction: Search_Engine\nAction Input: Sørensen assistant Carlsberg",
			"Thought: Try the web.\nAction: Search_Web\nAction Input: Danish plant ecologist who assisted Sørensen",
			"Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT",
		},
		Judges: []string{
			`{"analysis": "The wiki passage does not name the assistant.", "status": false}`,
			`{"analysis": "Still nothing new.", "status": false}`,
		},
	}
	w := newWorld(t, script)
	notes := filepath.Join(w.home, "notes")
	os.MkdirAll(notes, 0o755)
	os.WriteFile(filepath.Join(notes, "lab.md"), []byte("# Lab notebook\n\nSørensen's assistant at the Carlsberg Laboratory worked on enzymes and plant ecology.\n"), 0o644)
	if _, e, code := w.run("index", "--corpus", "notes", notes); code != 0 {
		t.Fatal(e)
	}
	out, errOut, code := w.run(w.askArgs("--corpus", "wiki", "--corpus", "notes", "--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, out)
	var order []string
	for _, e := range evs {
		switch e := e.Payload.(type) {
		case engine.Retrieval:
			order = append(order, "search "+e.Source)
		case engine.Selection:
			order = append(order, "switch→"+*e.NextSource)
		case engine.Observation:
			order = append(order, "observe "+e.Source)
		}
	}
	want := "search local:wiki,switch→local:notes,search local:notes,observe local:notes," +
		"search local:wiki,switch→web:searxng,search web:searxng,observe web:searxng"
	if got := strings.Join(order, ","); got != want {
		t.Errorf("switch order\n got %s\nwant %s", got, want)
	}
	session := evs[0].Payload.(engine.SessionStart)
	if c := session.Config; c == nil || strings.Join(c.Corpora, ",") != "wiki,notes" {
		t.Errorf("session config corpora %+v", session.Config)
	}
}

// A re-run with --offline answers web searches from the cache: the same web
// documents, and not one request to the search engine.
func TestOfflineRerunUsesCacheOnly(t *testing.T) {
	first := caseStudyScript()
	script := &fakellm.Script{Steps: append(first.Steps, first.Steps...), Judges: append(first.Judges, first.Judges...)}
	w := newWorld(t, script)
	out, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, out)
	before := w.search.Requests()
	if before != 1 {
		t.Fatalf("first run sent %d web requests", before)
	}
	rerun, errOut, code := w.run("sessions", "rerun", evs[0].Session, "--offline", "--json")
	if code != 0 {
		t.Fatalf("rerun exit %d: %s", code, errOut)
	}
	if after := w.search.Requests(); after != before {
		t.Errorf("offline re-run sent %d web request(s)", after-before)
	}
	again := parseEvents(t, rerun)
	webDocs := func(evs []eventT) []string {
		var ids []string
		for _, e := range payloadsOf[engine.Retrieval](evs) {
			if strings.HasPrefix(e.Source, "web:") {
				for _, d := range e.Docs {
					ids = append(ids, d.ID)
				}
			}
		}
		return ids
	}
	a, b := webDocs(evs), webDocs(again)
	if len(a) == 0 || strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("web documents differ: first %v, offline %v", a, b)
	}
	if again[0].Session == evs[0].Session {
		t.Error("a re-run is a new session")
	}
}

type eventT = engine.Event
