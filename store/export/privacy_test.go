package export

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/store"
)

// storePrivateThread stores a two-question thread run with --web never and
// --never-leave notes; the follow-up kept both from the first turn.
func storePrivateThread(t *testing.T, s *store.Store) *store.Record {
	t.Helper()
	ctx := context.Background()
	const id = "private"
	settings := fixture.Settings()
	settings.Web, settings.NeverLeave = engine.WebNever, []string{"notes"}
	if err := s.CreateSession(ctx, store.Session{ID: id, Question: "Who founded it?", Model: settings.Model, Started: fixture.Start}); err != nil {
		t.Fatal(err)
	}
	first := []engine.Event{
		{Payload: engine.SessionStart{Question: "Who founded it?", Config: &settings, Privacy: &engine.Privacy{Web: engine.WebNever, NeverLeave: []string{"notes"}}}},
		{Payload: engine.Final{Answer: "Ada Marsh."}},
	}
	second := []engine.Event{
		{Turn: 2, Payload: engine.Rewrite{Original: "when?", Rewritten: "When was it founded?", Privacy: &engine.Privacy{Web: engine.WebNever, NeverLeave: []string{"notes"}, Kept: []string{engine.PrivacyWeb, engine.PrivacyNeverLeave}}}},
		{Turn: 2, Payload: engine.Final{Answer: "In 1887."}},
	}
	add := func(evs []engine.Event, from int) {
		for i := range evs {
			evs[i].Session, evs[i].Seq, evs[i].Time = id, from+i, fixture.Start.Add(time.Duration(from+i)*time.Second)
		}
		if err := s.AppendEvents(ctx, evs); err != nil {
			t.Fatal(err)
		}
	}
	add(first, 1)
	if err := s.FinishSession(ctx, id, store.StatusAnswered, "Ada Marsh.", "", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.ContinueSession(ctx, id); err != nil {
		t.Fatal(err)
	}
	add(second, 3)
	if err := s.FinishSession(ctx, id, store.StatusAnswered, "In 1887.", "", nil); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestExportsKeepPrivacy: every export of a session run under privacy
// restrictions (web never, a never-leave corpus) states them, turn by turn
// when a follow-up's differ (here: kept from the first turn); the JSON
// exports carry them as a "privacy" key and still import.
func TestExportsKeepPrivacy(t *testing.T) {
	rec := storePrivateThread(t, openStore(t))
	const line = "turn 1: web never · never-leave notes; turn 2: web never · never-leave notes (kept from earlier turns: web, never-leave)"
	for _, tc := range []struct {
		format string
		want   []string
	}{
		{FormatMarkdown, []string{"| Privacy | " + line + " |", "| never-leave corpora | notes |"}},
		{FormatHTML, []string{"<dt>Privacy</dt><dd>" + line + "</dd>"}},
		{FormatJSON, []string{`"privacy": [`, `"turn": 2`, `"kept": [`}},
		{FormatJSONL, []string{`"privacy":[{"turn":1,"web":"never","never_leave":["notes"]},{"turn":2,"web":"never","never_leave":["notes"],"kept":["web","never_leave"]}]`}},
	} {
		var b bytes.Buffer
		if err := Write(&b, tc.format, rec); err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.want {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s export lacks %s:\n%s", tc.format, want, b.String())
			}
		}
		if tc.format != FormatJSON {
			continue
		}
		var doc struct {
			Privacy []turnPrivacy `json:"privacy"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Privacy) != 2 || doc.Privacy[0].Web != engine.WebNever {
			t.Errorf("JSON privacy %+v (%v)", doc.Privacy, err)
		}
		back, err := ReadJSON(&b)
		if err != nil || len(back) != 1 {
			t.Errorf("the JSON export does not read back: %v", err)
		}
	}
	// The same privacy on every turn is said once.
	if got := privacyText([]turnPrivacy{{Turn: 1, Privacy: engine.Privacy{Web: "never"}}, {Turn: 2, Privacy: engine.Privacy{Web: "never"}}}); got != "web never" {
		t.Errorf("privacyText = %q", got)
	}
}
