package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const caseID = "0b4f6c2e9a514d0cb8e73f1a2c9d8e70"

func openStore(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "prefrag.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// storeCaseStudy stores the case-study session as a run would, plus an
// analyst verdict on the switching judge decision, and reads it back.
func storeCaseStudy(t testing.TB, s *store.Store, id string) *store.Record {
	t.Helper()
	ctx := context.Background()
	settings := fixture.Settings()
	cfg, _ := json.Marshal(settings)
	if err := s.CreateSession(ctx, store.Session{ID: id, Question: fixture.Question, Model: settings.Model, Config: cfg, Started: fixture.Start}); err != nil {
		t.Fatal(err)
	}
	evs := fixture.Events(id)
	for _, ev := range evs {
		if err := s.AppendEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	counts, _ := json.Marshal(fixture.Counts())
	if err := s.FinishSession(ctx, id, store.StatusAnswered, fixture.FinalAnswer, "CORRECT", counts); err != nil {
		t.Fatal(err)
	}
	if err := s.SetJudgeVerdict(ctx, id, 10, "agree"); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// The finish time is the wall clock; pin it for golden output.
	fin := evs[len(evs)-1].Time
	rec.Session.Finished = &fin
	return rec
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", name, got)
	}
}

func TestMarkdownGolden(t *testing.T) {
	rec := storeCaseStudy(t, openStore(t), caseID)
	var b bytes.Buffer
	if err := Markdown(&b, rec); err != nil {
		t.Fatal(err)
	}
	golden(t, "casestudy.md", b.Bytes())

	md := b.String()
	for _, want := range []string{
		"## Answer",
		"- [6] **Carsten Olsen** — local:wiki, `Carsten_Olsen#0 (at wiki/2wikimqa.jsonl#1311)`",
		"**Selection judge on local:wiki: useful, the documents are kept.**",
		"**Selection judge on local:wiki: not useful, switching to web:duckduckgo.**",
		"*Analyst's verdict on this decision: agree.*",
		"**Observation from web:duckduckgo:** [4] pH - Wikipedia; [5] Søren Sørensen \\| Danish biochemist \\| Britannica.",
		"**Answer (self-evaluated INCORRECT).** Not available",
		"**Supplement.**",
		"**Answer (self-evaluated CORRECT).**",
		"| LLM calls | 6 (reasoning 4, judge 2, forced 0) |",
		"| temperature | 0.1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

func TestMarkdownUntrustedText(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	const id = "hostile"
	q := "What is \x1b]0;pwned\x07 this?\n# Not a heading"
	if err := s.CreateSession(ctx, store.Session{ID: id, Question: q}); err != nil {
		t.Fatal(err)
	}
	evs := []engine.Event{
		{Step: 1, Payload: engine.Retrieval{Source: "web:duckduckgo", Query: "q", Docs: []engine.Document{{
			ID: "https://evil.example/x", URL: "https://evil.example/x", Locator: "https://evil.example/x",
			Title: "<script>alert(1)</script> [click](javascript:x) \x1b[2J", Text: "t", Source: "web:duckduckgo"}}}},
		{Step: 1, Payload: engine.Observation{Source: "web:duckduckgo", DocIDs: []string{"https://evil.example/x"}, DocNums: []int{1}}},
		{Payload: engine.Final{Answer: "Done [1]. <img src=x onerror=alert(1)>\n# Heading\n---", Citations: []int{1}}},
	}
	for i, ev := range evs {
		ev.Session, ev.Seq, ev.Time = id, i+1, fixture.Start
		if err := s.AppendEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Markdown(&b, rec); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"\x1b", "\x07", "[click](", "\n# Not a heading", "\n# Heading", "\n---"} {
		if strings.Contains(md, bad) {
			t.Errorf("Markdown contains %q:\n%s", bad, md)
		}
	}
	if rawHTML := regexp.MustCompile(`(^|[^\\])<(script|img|/script)`); rawHTML.MatchString(md) {
		t.Errorf("Markdown contains raw HTML: %q", rawHTML.FindString(md))
	}
	if !strings.Contains(md, "#### Heading") {
		t.Errorf("a heading in the answer is not demoted:\n%s", md)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	src := openStore(t)
	ctx := context.Background()
	storeCaseStudy(t, src, caseID)
	b := storeCaseStudy(t, src, "1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f")
	if err := src.AddSessionCacheKey(ctx, caseID, "duckduckgo\x00Danish plant ecologist\x005"); err != nil {
		t.Fatal(err)
	}
	a, _ := src.GetSession(ctx, caseID)

	for _, recs := range [][]*store.Record{{a}, {a, b}} {
		var out bytes.Buffer
		if err := JSON(&out, recs...); err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out.Bytes()) {
			t.Fatalf("not valid JSON:\n%s", out.Bytes())
		}
		single := len(recs) == 1
		if trimmed := bytes.TrimSpace(out.Bytes()); (trimmed[0] == '{') != single {
			t.Errorf("%d sessions exported as %c…", len(recs), trimmed[0])
		}
		dst := openStore(t)
		ids, err := Import(ctx, dst, bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != len(recs) {
			t.Fatalf("imported %v", ids)
		}
		for _, want := range recs {
			got, err := dst.GetSession(ctx, want.Session.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Lines) != len(want.Lines) {
				t.Fatalf("%d events after import, want %d", len(got.Lines), len(want.Lines))
			}
			for i := range want.Lines {
				if !bytes.Equal(got.Lines[i], want.Lines[i]) {
					t.Errorf("event %d changed:\n got %s\nwant %s", i+1, got.Lines[i], want.Lines[i])
				}
			}
			if !reflect.DeepEqual(got.Verdicts, want.Verdicts) || !reflect.DeepEqual(got.CacheKeys, want.CacheKeys) {
				t.Errorf("verdicts/cache keys changed: %v %v", got.Verdicts, got.CacheKeys)
			}
			g, w := got.Session, want.Session
			g.Owner, w.Owner = store.Owner{}, store.Owner{}
			if g.Imported.IsZero() {
				t.Error("the import is not recorded as one")
			}
			g.Imported = w.Imported // when it was imported is not in the file
			if !reflect.DeepEqual(g, w) {
				t.Errorf("session changed:\n got %+v\nwant %+v", g, w)
			}
		}
	}
}

func TestJSONGolden(t *testing.T) {
	rec := storeCaseStudy(t, openStore(t), caseID)
	var b bytes.Buffer
	if err := JSON(&b, rec); err != nil {
		t.Fatal(err)
	}
	golden(t, "casestudy.json", b.Bytes())
}

func TestJSONL(t *testing.T) {
	s := openStore(t)
	a := storeCaseStudy(t, s, caseID)
	b := storeCaseStudy(t, s, "second")
	var out bytes.Buffer
	if err := JSONL(&out, a, b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per session", len(lines))
	}
	var got struct {
		ID, Question, Answer, Label, Status, Model string
		Started                                    time.Time
		Finished                                   *time.Time
		Counts                                     engine.Counts
		Trajectory                                 []json.RawMessage
	}
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != caseID || got.Answer != fixture.FinalAnswer || got.Label != "CORRECT" || got.Status != "answered" ||
		got.Model != fixture.Settings().Model || got.Counts != fixture.Counts() || got.Finished == nil || !got.Started.Equal(fixture.Start) {
		t.Errorf("line = %+v", got)
	}
	if len(got.Trajectory) != len(a.Lines) || !bytes.Equal(got.Trajectory[4], a.Lines[4]) {
		t.Errorf("trajectory differs from the stored events")
	}
}

func TestPreferencePairs(t *testing.T) {
	rec := storeCaseStudy(t, openStore(t), caseID)
	var out bytes.Buffer
	if err := PreferencePairs(&out, rec); err != nil {
		t.Fatal(err)
	}
	var pairs []Pair
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p Pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, p)
	}
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want one per selection event (2)", len(pairs))
	}
	web := "web:duckduckgo"
	want := []Pair{
		{Mark: 1, Session: caseID, Seq: 5, Step: 1, Question: fixture.Question, JudgeObtained: "", JudgeNew: fixture.JudgeNew1,
			Query: "Danish chemist who introduced the concept of pH", Source: "local:wiki", JudgeModel: fixture.Settings().Model,
			Analysis: rec.Events[4].Payload.(engine.Selection).Analysis, Status: true, SessionLabel: "CORRECT", SessionStatus: "answered"},
		{Mark: 1, Session: caseID, Seq: 10, Step: 2, Question: fixture.Question, JudgeObtained: fixture.JudgeObtained2, JudgeNew: fixture.JudgeNew2, JudgeRepeated: fixture.JudgeRepeated2,
			Query: "Danish plant ecologist who assisted Søren Peder Lauritz Sørensen", Source: "local:wiki", JudgeModel: fixture.Settings().Model,
			Analysis: rec.Events[9].Payload.(engine.Selection).Analysis, Status: false, NextSource: &web, UserVerdict: "agree", SessionLabel: "CORRECT", SessionStatus: "answered"},
	}
	if !reflect.DeepEqual(pairs, want) {
		t.Errorf("pairs:\n%+v\nwant\n%+v", pairs, want)
	}
}

func TestReadJSONRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"not json", "hello"},
		{"no id", `{"session": {"question": "q"}, "events": []}`},
		{"bad event", `{"session": {"id": "x"}, "events": [{"type": 3}]}`},
		{"truncated", `[{"session": {"id": "x"}, "events": [`},
	}
	for _, tt := range tests {
		if _, err := ReadJSON(strings.NewReader(tt.in)); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

func FuzzReadJSON(f *testing.F) {
	var b bytes.Buffer
	evs := fixture.Events("f")
	lines := make([]json.RawMessage, len(evs))
	for i, ev := range evs {
		lines[i], _ = json.Marshal(ev)
	}
	JSON(&b, &store.Record{Session: store.Session{ID: "f", Question: fixture.Question}, Lines: lines[:6]})
	f.Add(b.String())
	f.Add(`[{"session":{"id":"a"},"events":[]}]`)
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ReadJSON(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Session.ID == "" || len(r.Lines) != len(r.Events) {
				t.Fatalf("inconsistent record from %q", in)
			}
			// What was read must export again.
			var out bytes.Buffer
			if err := JSON(&out, r); err != nil {
				t.Fatalf("re-export: %v", err)
			}
		}
	})
}

func TestWriteFormats(t *testing.T) {
	s := openStore(t)
	a := storeCaseStudy(t, s, caseID)
	b := storeCaseStudy(t, s, "second")
	tests := []struct {
		format string
		check  func(string) bool
	}{
		{FormatMarkdown, func(out string) bool { return strings.Count(out, "\n---\n\n# In what year") == 1 }},
		{FormatJSON, func(out string) bool { return strings.HasPrefix(out, "[\n") && json.Valid([]byte(out)) }},
		{FormatJSONL, func(out string) bool { return strings.Count(out, "\n") == 2 }},
		{FormatPairs, func(out string) bool { return strings.Count(out, "\n") == 4 }},
		{FormatHTML, func(out string) bool {
			return strings.Count(out, "<!DOCTYPE html>") == 1 && strings.Count(out, `<article class="session"`) == 2
		}},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := Write(&out, tt.format, a, b); err != nil {
			t.Fatalf("%s: %v", tt.format, err)
		}
		if !tt.check(out.String()) {
			t.Errorf("%s output of two sessions is not as expected:\n%.400s", tt.format, out.String())
		}
	}
	if err := Write(&bytes.Buffer{}, "pdf", a); !errors.Is(err, ErrFormat) {
		t.Errorf("unknown format: %v", err)
	}
}
