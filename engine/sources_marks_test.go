package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// The final event lists every document of the context with the number the
// answer cites it by: cited ones first, in citation order, then the rest.
func TestFinalSourcesNumberedAsCited(t *testing.T) {
	cases := []struct {
		name     string
		answer   string
		wantNums []int
		wantIDs  []string
		cited    []int
	}{
		{"cites the second", "Beta it is [2].", []int{2, 1, 3}, []string{"a2", "a1", "a3"}, []int{2}},
		{"cites in reverse", "Both [3] and [1].", []int{3, 1, 2}, []string{"a3", "a1", "a2"}, []int{3, 1}},
		{"cites nothing", "No idea.", []int{1, 2, 3}, []string{"a1", "a2", "a3"}, nil},
		{"cites a number no document had", "See [9].", []int{1, 2, 3}, []string{"a1", "a2", "a3"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.local.answers["a"] = []Document{doc("local:wiki", "a1", "A", "alpha"), doc("local:wiki", "a2", "B", "beta"), doc("local:wiki", "a3", "C", "gamma")}
			h.llm.steps = []reply{
				{text: "Thought: t\nAction: Search_Engine\nAction Input: a"},
				{text: "Final Answer: " + c.answer + "\nSelf-Evaluation: CORRECT"},
			}
			h.llm.judges = []reply{judgeJSON(true, "ok")}
			if _, err := h.run(t, "Q?", nil); err != nil {
				t.Fatal(err)
			}
			f := h.rec.final(t)
			var ids []string
			for _, d := range f.Sources {
				ids = append(ids, d.ID)
			}
			if !equalInts(f.SourceNums, c.wantNums) || !equalStrings(ids, c.wantIDs) || !equalInts(f.Citations, c.cited) {
				t.Errorf("sources %v numbered %v, citations %v; want %v numbered %v, citations %v",
					ids, f.SourceNums, f.Citations, c.wantIDs, c.wantNums, c.cited)
			}
			b, _ := json.Marshal(f)
			if !strings.Contains(string(b), `"source_nums":[`) {
				t.Errorf("final JSON lacks source_nums: %s", b)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// partialSource returns documents together with an error, as a web engine
// does for an answer cut at the size limit.
type partialSource struct {
	docs []Document
	err  error
}

func (p partialSource) Name() string       { return "web:duckduckgo" }
func (p partialSource) Kind() sources.Kind { return sources.KindWeb }
func (p partialSource) Search(context.Context, string, int) ([]Document, error) {
	return p.docs, p.err
}

// A retrieval that failed says how (blocked, truncated, unavailable) in its
// own event, not only in a separate warning; partial results of a cut
// answer are kept and marked.
func TestRetrievalOutcome(t *testing.T) {
	webDoc := Document{ID: "https://a.example/", URL: "https://a.example/", Title: "A", Text: "alpha web", Source: "web:duckduckgo", Score: 1}
	cases := []struct {
		name     string
		src      partialSource
		outcome  string
		docs     int
		noteHas  string
		obsSrc   string
		obsNotes string
	}{
		{"blocked", partialSource{err: &sources.BlockedError{Engine: "web:duckduckgo", Status: 429, Reason: "HTTP 429"}}, OutcomeBlocked, 0, "blocked", "local:wiki", "web unavailable"},
		{"truncated, nothing read", partialSource{err: &sources.TruncatedError{Engine: "web:duckduckgo", Limit: 8 << 20}}, OutcomeTruncated, 0, "cut", "local:wiki", "web unavailable"},
		{"truncated, partial", partialSource{docs: []Document{webDoc}, err: &sources.TruncatedError{Engine: "web:duckduckgo", Limit: 8 << 20, Results: 1}}, OutcomeTruncated, 1, "later ones are lost", "web:duckduckgo", ""},
		{"unavailable", partialSource{err: &sources.UnavailableError{Source: "web:duckduckgo", Err: context.DeadlineExceeded}}, OutcomeUnavailable, 0, "unavailable", "local:wiki", "web unavailable"},
		{"fine", partialSource{docs: []Document{webDoc}}, "", 1, "", "web:duckduckgo", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &harness{llm: &scriptLLM{t: t}, local: &memSource{name: "local:wiki", kind: sources.KindLocal, answers: map[string][]Document{}}, rec: &recorder{}}
			eng, err := New(Config{LLM: h.llm, Sources: []Source{h.local, c.src}, Now: func() time.Time { return time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC) }})
			if err != nil {
				t.Fatal(err)
			}
			h.eng = eng
			h.local.answers["a"] = []Document{doc("local:wiki", "a1", "A", "alpha")}
			h.llm.steps = []reply{{text: "Thought: t\nAction: Search_Engine\nAction Input: a"}, {text: "Final Answer: x\nSelf-Evaluation: CORRECT"}}
			h.llm.judges = []reply{judgeJSON(false, "not enough")}
			if _, err := h.run(t, "Q?", nil); err != nil {
				t.Fatal(err)
			}
			rets := payloads[Retrieval](h.rec)
			if len(rets) != 2 {
				t.Fatalf("%d retrievals", len(rets))
			}
			web := rets[1]
			if web.Outcome != c.outcome || len(web.Docs) != c.docs || !strings.Contains(web.Note, c.noteHas) {
				t.Errorf("web retrieval outcome %q, %d docs, note %q; want %q, %d, note with %q", web.Outcome, len(web.Docs), web.Note, c.outcome, c.docs, c.noteHas)
			}
			b, _ := json.Marshal(web)
			if c.outcome != "" && (!strings.Contains(string(b), `"outcome":"`+c.outcome+`"`) || !strings.Contains(string(b), `"note":`)) {
				t.Errorf("retrieval JSON lacks outcome/note: %s", b)
			}
			if c.outcome == "" && strings.Contains(string(b), `"outcome"`) {
				t.Errorf("a normal retrieval carries an outcome: %s", b)
			}
			obs := payloads[Observation](h.rec)[0]
			if obs.Source != c.obsSrc || !strings.Contains(obs.Note, c.obsNotes) {
				t.Errorf("observation from %s note %q, want %s with %q", obs.Source, obs.Note, c.obsSrc, c.obsNotes)
			}
		})
	}
}
