package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/sources"
)

// releaseDB is a database written by the release before threads (schema
// version 3, every session one question). TestWriteReleaseDB wrote it with
// that release's store code; it is kept as it is and never rewritten.
const releaseDB = "testdata/release_schema3.db"

// Sessions in releaseDB.
const (
	releaseAnswered    = "0194a1b2c3d4e5f60718293a4b5c6d7e"
	releaseFailed      = "0194a1b2c3d4e5f60718293a4b5c6d7f"
	releaseInterrupted = "0194a1b2c3d4e5f60718293a4b5c6d80"
)

// TestWriteReleaseDB writes releaseDB. It ran once, with the schema-3 store
// (PREFRAG_WRITE_RELEASE_DB=1); it refuses to run with any other schema.
func TestWriteReleaseDB(t *testing.T) {
	if os.Getenv("PREFRAG_WRITE_RELEASE_DB") == "" {
		t.Skip("writes testdata/release_schema3.db; set PREFRAG_WRITE_RELEASE_DB=1 (schema 3 code only)")
	}
	if SchemaVersion != 3 {
		t.Fatalf("schema %d: the release database must be written by the schema-3 store", SchemaVersion)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "prefrag.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	evs := createFixture(t, s, releaseAnswered, start)
	for _, ev := range evs {
		if ev.Type() == engine.EventSelection {
			if err := s.SetJudgeVerdict(ctx, releaseAnswered, ev.Seq, "agree"); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	cache := WebCache{Store: s, now: func() time.Time { return start }}.ForSession(releaseAnswered)
	if err := cache.Put(ctx, "duckduckgo\x00olsen", []sources.Document{{ID: "https://example.org/olsen", Title: "Olsen", Text: "Olsen died in 1974.", Source: "web:duckduckgo"}}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(fixture.Settings())
	if err := s.CreateSession(ctx, Session{ID: releaseFailed, Question: "What is the boiling point of water?", Model: "m", Config: cfg, Started: start.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	t1 := start.Add(time.Hour)
	for i, ev := range []engine.Event{
		{Payload: engine.SessionStart{Question: "What is the boiling point of water?"}},
		{Payload: engine.Notice{Message: "the LLM server is unreachable", Fatal: true}},
	} {
		ev.Session, ev.Seq, ev.Time = releaseFailed, i+1, t1.Add(time.Duration(i)*time.Second)
		if err := s.AppendEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishSession(ctx, releaseFailed, StatusFailed, "", "", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, Session{ID: releaseInterrupted, Question: "Who discovered pH?", Model: "m", Config: cfg, Started: start.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	ev := engine.Event{Session: releaseInterrupted, Seq: 1, Time: start.Add(2 * time.Hour), Payload: engine.SessionStart{Question: "Who discovered pH?"}}
	if err := s.AppendEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	// Owned by a process on another host (its status stays running).
	if _, err := s.w.ExecContext(ctx, "UPDATE sessions SET owner_host = 'gone-host', owner_pid = 1, owner_start = 1, owner_boot = 'gone' WHERE id = ?", releaseInterrupted); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA journal_mode=DELETE"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA page_size = 1024"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("VACUUM"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(releaseDB, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d bytes", releaseDB, len(data))
}
