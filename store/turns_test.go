package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
)

// rawEvents reads the event lines of every session straight from a
// database file, without the store.
func rawEvents(t *testing.T, path string) map[string][]string {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT session_id, json FROM events ORDER BY session_id, seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var id, line string
		if err := rows.Scan(&id, &line); err != nil {
			t.Fatal(err)
		}
		out[id] = append(out[id], line)
	}
	return out
}

// TestReleaseDBOpensAsOneTurnThreads opens the database the release before
// threads wrote: the schema migrates, every session is a thread of one turn
// with its question, answer, label and counts, and every event, verdict
// and cache key is intact.
func TestReleaseDBOpensAsOneTurnThreads(t *testing.T) {
	want := rawEvents(t, releaseDB)
	if len(want) != 3 {
		t.Fatalf("release database holds events of %d sessions, want 3", len(want))
	}
	data, err := os.ReadFile(releaseDB)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "prefrag.db")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for open := 0; open < 2; open++ { // the second open finds it migrated
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := userVersion(ctx, s.r); v != SchemaVersion {
			t.Fatalf("schema %d after open, want %d", v, SchemaVersion)
		}
		list, err := s.ListSessions(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 3 {
			t.Fatalf("%d sessions, want 3", len(list))
		}
		status := map[string]string{}
		for _, ss := range list {
			status[ss.ID] = ss.Status
			if ss.Turns != 1 || ss.LastQuestion != "" {
				t.Errorf("session %s: turns %d last question %q, want one turn", ss.ID, ss.Turns, ss.LastQuestion)
			}
			rec, err := s.GetSession(ctx, ss.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Lines) != len(want[ss.ID]) {
				t.Fatalf("session %s: %d events, want %d", ss.ID, len(rec.Lines), len(want[ss.ID]))
			}
			for i, l := range rec.Lines {
				if string(l) != want[ss.ID][i] {
					t.Fatalf("session %s event %d changed:\n got %s\nwant %s", ss.ID, i+1, l, want[ss.ID][i])
				}
			}
			turns, err := s.Turns(ctx, ss.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(turns) != 1 || turns[0].Turn != 1 || turns[0].Question != ss.Question || turns[0].Answer != ss.Answer ||
				turns[0].Label != ss.Label || !bytes.Equal(turns[0].Counts, ss.Counts) || turns[0].FirstSeq != 1 {
				t.Errorf("session %s: turns %+v, want its one question", ss.ID, turns)
			}
			if ss.ID == releaseAnswered {
				if len(rec.Verdicts) != 1 || len(rec.CacheKeys) != 1 || ss.Answer != fixture.FinalAnswer {
					t.Errorf("answered session: verdicts %v cache keys %v answer %q", rec.Verdicts, rec.CacheKeys, ss.Answer)
				}
				th := engine.ThreadFrom(rec.Events)
				if th.Turn != 2 || len(th.Docs) == 0 || th.Turns[0].Question != fixture.Question {
					t.Errorf("thread of the answered session: %+v", th)
				}
			}
		}
		if status[releaseAnswered] != StatusAnswered || status[releaseFailed] != StatusFailed || status[releaseInterrupted] != StatusRunning { // owned by another host: nothing to check
			t.Errorf("statuses %v", status)
		}
		s.Close()
	}
}

// TestThreadTurns: a follow-up reopens the session; its rewrite event opens
// turn 2 and its final closes it; list shows two turns and the latest
// question; an export imported elsewhere has the same turns.
func TestThreadTurns(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	id := "0b4f6c2e9a514d0cb8e73f1a2c9d8e70"
	evs := createFixture(t, s, id, fixture.Start)
	if err := s.ContinueSession(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.ContinueSession(ctx, id); !errors.Is(err, ErrRunning) {
		t.Fatalf("continuing a session this process runs: %v, want ErrRunning", err)
	}
	last := evs[len(evs)-1].Seq
	at := fixture.Start.Add(time.Hour)
	turn2 := []engine.Event{
		{Payload: engine.Rewrite{Original: "and where did he study?", Rewritten: "Where did Carsten Olsen study?"}},
		{Step: 1, Payload: engine.Thought{Text: "known"}},
		{Step: 1, Payload: engine.Answer{Text: "Copenhagen [1]", Label: "CORRECT"}},
		{Payload: engine.Final{Answer: "Copenhagen [1]", Label: "CORRECT", Counts: &engine.Counts{LLMCalls: 2, RewriteCalls: 1}}},
	}
	for i := range turn2 {
		turn2[i].Session, turn2[i].Seq, turn2[i].Turn, turn2[i].Time = id, last+1+i, 2, at.Add(time.Duration(i)*time.Second)
	}
	if err := s.AppendEvents(ctx, turn2); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishSession(ctx, id, StatusAnswered, "Copenhagen [1]", "CORRECT", nil); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListSessions(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Turns != 2 || list[0].LastQuestion != "and where did he study?" || list[0].Question != fixture.Question || list[0].Answer != "Copenhagen [1]" {
		t.Fatalf("list %+v", list)
	}
	turns, err := s.Turns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[1].Rewritten != "Where did Carsten Olsen study?" || turns[1].FirstSeq != last+1 || turns[1].Answer != "Copenhagen [1]" ||
		turns[0].Answer != fixture.FinalAnswer || turns[1].Finished == nil {
		t.Fatalf("turns %+v", turns)
	}
	var n int
	if err := s.r.QueryRow("SELECT count(*) FROM events WHERE session_id = ? AND turn = 2", id).Scan(&n); err != nil || n != len(turn2) {
		t.Fatalf("%d events stored with turn 2 (%v), want %d", n, err, len(turn2))
	}
	rec, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec.Session)
	if !bytes.Contains(b, []byte(`"turns":2`)) {
		t.Fatalf("session JSON lacks turns: %s", b)
	}
	other := openTemp(t)
	if err := other.ImportRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	imported, err := other.Turns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(imported) != 2 || imported[1].Rewritten != turns[1].Rewritten || imported[1].Answer != turns[1].Answer || imported[0].Answer != turns[0].Answer {
		t.Fatalf("imported turns %+v, want %+v", imported, turns)
	}
	if _, err := s.Turns(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("turns of an unknown session: %v", err)
	}
	if err := s.ContinueSession(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("continue an unknown session: %v", err)
	}
}

func TestLatestSessionIsTheLastActive(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, err := s.LatestSession(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty store: %v", err)
	}
	old, young := "0000000000000000000000000000000a", "0000000000000000000000000000000b"
	createFixture(t, s, old, fixture.Start)
	createFixture(t, s, young, fixture.Start.Add(time.Hour))
	if id, err := s.LatestSession(ctx); err != nil || id != young {
		t.Fatalf("latest = %s, %v; want %s", id, err, young)
	}
	// A follow-up of the older session makes it the latest.
	if err := s.ContinueSession(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishSession(ctx, old, StatusAnswered, "a", "", nil); err != nil {
		t.Fatal(err)
	}
	if id, err := s.LatestSession(ctx); err != nil || id != old {
		t.Fatalf("latest = %s, %v; want %s", id, err, old)
	}
}

// Issue 27: a turn that ends in a fatal error records the calls and tokens
// it spent (the fatal error event's counts), and the turn is finished.
func TestFailedTurnKeepsItsCounts(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	id := "6c1d0b2e-9a51-4d0c-b8e7-3f1a2c9d8e71"
	evs := createFixture(t, s, id, fixture.Start)
	if err := s.ContinueSession(ctx, id); err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1].Seq
	at := fixture.Start.Add(time.Hour)
	turn2 := []engine.Event{
		{Payload: engine.Rewrite{Original: "and then?", Rewritten: "What happened then?"}},
		{Payload: engine.Notice{Message: "the step prompt does not fit", Fatal: true, Counts: &engine.Counts{LLMCalls: 3, RewriteCalls: 1, PromptTokens: 5120}}},
	}
	for i := range turn2 {
		turn2[i].Session, turn2[i].Seq, turn2[i].Turn, turn2[i].Time = id, last+1+i, 2, at.Add(time.Duration(i)*time.Second)
	}
	if err := s.AppendEvents(ctx, turn2); err != nil {
		t.Fatal(err)
	}
	turns, err := s.Turns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var c engine.Counts
	if len(turns) != 2 || turns[1].Finished == nil || json.Unmarshal(turns[1].Counts, &c) != nil || c.LLMCalls != 3 || c.PromptTokens != 5120 || turns[1].Answer != "" {
		t.Fatalf("turns %+v", turns)
	}
}
