package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var updateEvents = flag.Bool("update", false, "rewrite the golden event streams in testdata")

// goldenTime is not UTC on purpose: events are written in UTC.
var goldenTime = time.Date(2026, 3, 14, 10, 26, 53, 123456789, time.FixedZone("CET", 3600))

func goldenBool(b bool) *bool       { return &b }
func goldenString(s string) *string { return &s }

// goldenTable holds one event of every type with every optional field, and
// the same types with the optional fields unset.
func goldenTable() []Event {
	s := DefaultRunConfig()
	s.Model = "golden"
	local := Document{ID: "d1", Title: "Tom & <Jerry>", Text: "alpha “quoted” é", Source: "local:wiki", Score: 1.5, Locator: "wiki/a.jsonl#12"}
	web := Document{ID: "https://example.org/x?a=1&b=2", Title: "Web", Text: "beta", URL: "https://example.org/x?a=1&b=2", Source: "web:duckduckgo", Score: 0.25,
		Cached: true, CachedAt: time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)}
	counts := &Counts{LLMCalls: 5, StepCalls: 3, JudgeCalls: 2, ForcedCalls: 1, LocalRetrievals: 2, WebRetrievals: 1, UsedRetrievals: 2,
		UsedLocalRetrievals: 1, UsedDocs: 3, PromptTokens: 1000, CachedPromptTokens: 400, OutputTokens: 120, Reflections: 1, Switches: 1,
		LLMMillis: 1500, RetrievalMillis: 300, TotalMillis: 2000}
	evs := []Event{
		{Payload: SessionStart{Question: "Who <b>?", Config: &s}},
		{Payload: SessionStart{Question: ""}},
		{Step: 1, Payload: Thought{Text: "I need <x> & y"}},
		{Step: 2, Payload: Thought{Text: "forced thought", Role: "forced"}},
		{Payload: Thought{}},
		{Step: 1, Payload: Action{Tool: "Search_Engine", Query: "chemist pH"}},
		{Payload: Action{}},
		{Step: 1, Payload: Retrieval{Source: "local:wiki", Query: "chemist pH", Docs: []Document{local}}},
		{Step: 1, Payload: Retrieval{Source: "local:wiki", Query: "nothing"}},
		{Step: 2, Payload: Retrieval{Source: "web:duckduckgo", Query: "q", Docs: []Document{web}, Reflection: true}},
		{Step: 2, Payload: Retrieval{Source: "web:duckduckgo", Query: "q", Outcome: OutcomeBlocked, Note: "rate limited (HTTP 429)"}},
		{Step: 2, Payload: Retrieval{Source: "web:duckduckgo", Query: "q", Docs: []Document{web}, Outcome: OutcomeTruncated, Note: "cut at 2 MB"}},
		{Step: 1, Payload: Selection{Status: goldenBool(true), Analysis: "names the chemist", Source: "local:wiki", JudgeObtained: "old", JudgeNew: "new"}},
		{Step: 2, Payload: Selection{Status: goldenBool(false), Analysis: "nothing", NextSource: goldenString("web:duckduckgo")}},
		{Step: 3, Payload: Selection{Status: goldenBool(false), Analysis: "first", JudgeNew: "only new"}},
		{Step: 4, Payload: Selection{JudgeObtained: "only obtained"}},
		{Payload: Selection{}},
		{Step: 1, Payload: Observation{Source: "local:wiki", DocIDs: []string{"d1", "d2"}, DocNums: []int{1, 2}, Discarded: []string{"d9"}, Note: "web not allowed"}},
		{Step: 1, Payload: Observation{Source: "local:wiki"}},
		{Step: 3, Payload: Answer{Text: "1974", Label: LabelCorrect, Explanation: "Olsen died in 1974 [2].", Suggestions: "None", Role: "step"}},
		{Step: 3, Payload: Answer{}},
		{Step: 4, Payload: Supplement{Query: "Q?", DocIDs: []string{"d1", "https://w/1"}, DocNums: []int{1, 3}, Note: "web: blocked"}},
		{Payload: Supplement{Query: "Q?"}},
		{Payload: Final{Answer: "1974", Forced: true, Counts: counts, Cancelled: true, Label: "INCORRECT", Citations: []int{2, 1}, InvalidCitations: []int{7}, Sources: []Document{local, web}, SourceNums: []int{2, 1}}},
		{Payload: Final{Answer: ""}},
		{Step: 2, Payload: Notice{Source: "web:duckduckgo", Message: "searching the web: <why>", Fatal: false}},
		{Payload: Notice{Message: "llm unreachable", Fatal: true}},
		{Payload: Notice{}},
		{Step: 1, Payload: Token{Text: "Thought: ", Role: "step"}},
		{Step: 1, Payload: Token{Text: ""}},
		{Step: 2, Payload: Unknown{Type: "future_thing"}},
		{Payload: Unknown{Type: "future_thing"}},
	}
	for i := range evs {
		evs[i].Session = "golden-session"
		evs[i].Seq = i + 1
		evs[i].Time = goldenTime.Add(time.Duration(i) * time.Millisecond)
	}
	evs[len(evs)-2].Time = evs[len(evs)-2].Time.UTC()
	evs[len(evs)-1].Time = evs[len(evs)-1].Time.UTC()
	return evs
}

// goldenRuns are real engine runs with the scripted model.
var goldenRuns = map[string]func(t *testing.T) []Event{
	"casestudy": func(t *testing.T) []Event {
		h := newHarness(t)
		h.local.answers["chemist"] = []Document{doc("local:wiki", "d1", "S. P. L. Sørensen", "Søren Peder Lauritz Sørensen was a Danish chemist, famous for the introduction of the concept of pH.")}
		h.local.answers["ecologist"] = []Document{doc("local:wiki", "d1", "S. P. L. Sørensen", "Søren Peder Lauritz Sørensen was a Danish chemist, famous for the introduction of the concept of pH."), doc("local:wiki", "d9", "Unrelated", "Nothing useful.")}
		h.web.answers["ecologist"] = []Document{{ID: "https://example.org/olsen", Title: "Carsten Olsen", Text: "Carsten Olsen (1891–1974) was a Danish plant ecologist who assisted S. P. L. Sørensen.", URL: "https://example.org/olsen", Source: "web:duckduckgo"}}
		h.llm.steps = []reply{
			{text: "Thought: I need the chemist first.\nAction: Search_Engine\nAction Input: Danish chemist who introduced pH"},
			{text: "Thought: Now the ecologist who assisted him.\nAction: Search_Engine\nAction Input: Danish plant ecologist who assisted Sørensen"},
			{text: "Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT\nExplanation: Olsen died in 1974 [2] and [9].\nImprovement Suggestions: None"},
		}
		h.llm.judges = []reply{judgeJSON(true, "names the chemist"), judgeJSON(false, "repeats the chemist; nothing about the ecologist")}
		if _, err := h.run(t, caseQuestion, func(s *Settings) { s.Web = "auto" }); err != nil {
			t.Fatal(err)
		}
		return h.rec.events
	},
	"reflection": func(t *testing.T) []Event {
		h := newHarness(t)
		h.local.answers["danish plant ecologist"] = []Document{doc("local:wiki", "l1", "Carsten Olsen", "Carsten Olsen (1891–1974), Danish plant ecologist, assisted Sørensen.")}
		h.web.answers["danish plant ecologist"] = []Document{{ID: "https://w/1", Title: "Olsen", Text: "Olsen died in 1974.", Source: "web:duckduckgo"}}
		h.llm.steps = []reply{
			{text: "Thought: Not found.\nFinal Answer: Not available\nSelf-Evaluation: INCORRECT\nExplanation: nothing found\nImprovement Suggestions: search more"},
			{text: "Thought: Olsen.\nFinal Answer: 1974\nSelf-Evaluation: CORRECT\nExplanation: found"},
		}
		if _, err := h.run(t, caseQuestion, nil); err != nil {
			t.Fatal(err)
		}
		return h.rec.events
	},
}

// stable removes what depends on the machine (wall-time counts) and on the
// settings schema (the session's config) from a run's events.
func stable(evs []Event) []Event {
	out := make([]Event, len(evs))
	for i, e := range evs {
		switch p := e.Payload.(type) {
		case SessionStart:
			p.Config = nil
			e.Payload = p
		case Final:
			if p.Counts != nil {
				c := *p.Counts
				c.LLMMillis, c.RetrievalMillis, c.TotalMillis = 0, 0, 0
				p.Counts = &c
				e.Payload = p
			}
		}
		out[i] = e
	}
	return out
}

func marshalLines(t *testing.T, evs []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("marshal %s: %v", e.Type(), err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateEvents {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("%s line %d differs:\n got %s\nwant %s", name, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d lines, want %d", name, len(gl), len(wl))
	}
}

// TestEventGoldenTable pins the wire format of every event type and
// optional field (CONTRACT.md), byte for byte.
func TestEventGoldenTable(t *testing.T) {
	checkGolden(t, "events_table.golden.jsonl", marshalLines(t, goldenTable()))
}

// TestEventGoldenRuns pins real event streams of the scripted engine.
func TestEventGoldenRuns(t *testing.T) {
	for name, run := range goldenRuns {
		t.Run(name, func(t *testing.T) {
			checkGolden(t, "events_run_"+name+".golden.jsonl", marshalLines(t, stable(run(t))))
		})
	}
}

// TestEventGoldenDecode reads every golden line back (as the store and
// imports do) and writes it again: the bytes must not change.
func TestEventGoldenDecode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "events_*.golden.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var e Event
			if err := json.Unmarshal(line, &e); err != nil {
				t.Fatalf("%s:%d: %v", f, i+1, err)
			}
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("%s:%d: %v", f, i+1, err)
			}
			if !bytes.Equal(b, line) {
				t.Errorf("%s:%d does not round-trip:\n got %s\nwant %s", f, i+1, b, line)
			}
		}
	}
}
