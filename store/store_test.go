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

func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "prefrag.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// createFixture stores the case-study session under id, as the CLI would:
// CreateSession, every event (a token event among them), FinishSession.
func createFixture(t testing.TB, s *Store, id string, started time.Time) []engine.Event {
	t.Helper()
	ctx := context.Background()
	settings := fixture.Settings()
	cfg, _ := json.Marshal(settings)
	if err := s.CreateSession(ctx, Session{ID: id, Question: fixture.Question, Model: settings.Model, Config: cfg, Started: started}); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	evs := fixture.Events(id)
	for i, ev := range evs {
		if err := s.AppendEvent(ctx, ev); err != nil {
			t.Fatalf("AppendEvent %d: %v", i, err)
		}
		if i == 3 {
			tok := engine.Event{Session: id, Seq: ev.Seq, Step: 1, Payload: engine.Token{Text: "Carsten"}}
			if err := s.AppendEvent(ctx, tok); err != nil {
				t.Fatalf("AppendEvent token: %v", err)
			}
		}
	}
	counts, _ := json.Marshal(fixture.Counts())
	if err := s.FinishSession(ctx, id, StatusAnswered, fixture.FinalAnswer, "CORRECT", counts); err != nil {
		t.Fatalf("FinishSession: %v", err)
	}
	return evs
}

func TestAppendShowRoundTrip(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	evs := createFixture(t, s, "0b4f6c2e9a514d0cb8e73f1a2c9d8e70", fixture.Start)

	rec, err := s.GetSession(ctx, "0b4f6c2e9a514d0cb8e73f1a2c9d8e70")
	if err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	if len(rec.Lines) != len(evs) || len(rec.Events) != len(evs) {
		t.Fatalf("got %d lines and %d events, want %d (the token event must be dropped)", len(rec.Lines), len(rec.Events), len(evs))
	}
	for i, ev := range evs {
		want, _ := json.Marshal(ev) // what `ask --json` prints
		if !bytes.Equal(rec.Lines[i], want) {
			t.Errorf("line %d differs:\n got %s\nwant %s", i+1, rec.Lines[i], want)
		}
		again, _ := json.Marshal(rec.Events[i])
		if !bytes.Equal(again, want) {
			t.Errorf("event %d does not round-trip through engine.Event:\n got %s\nwant %s", i+1, again, want)
		}
	}
	ss := rec.Session
	if ss.Status != StatusAnswered || ss.Answer != fixture.FinalAnswer || ss.Label != "CORRECT" || ss.Finished == nil {
		t.Errorf("session = %+v", ss)
	}
	if len(ss.Corpora) != 1 || ss.Corpora[0] != "wiki" {
		t.Errorf("corpora = %q, want [wiki] (from the config)", ss.Corpora)
	}
	if !ss.Started.Equal(fixture.Start) {
		t.Errorf("started = %v, want %v", ss.Started, fixture.Start)
	}
	var c engine.Counts
	if err := json.Unmarshal(ss.Counts, &c); err != nil || c != fixture.Counts() {
		t.Errorf("counts = %s (%v)", ss.Counts, err)
	}
}

func TestListSessionsFilters(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	base := time.Date(2025, 5, 1, 8, 0, 0, 0, time.UTC)
	createFixture(t, s, "aaaa-1", base)
	createFixture(t, s, "aaab-2", base.Add(time.Hour))
	if err := s.CreateSession(ctx, Session{ID: "bbbb-3", Question: "Which one was established first, Grouplogic or Inbios?",
		Config: json.RawMessage(`{"corpora":["news","wiki"]}`), Started: base.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishSession(ctx, "bbbb-3", StatusFailed, "", "", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, Session{ID: "cccc-4", Question: "What is BM25?", Corpora: []string{"papers"}, Started: base.Add(3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		f    Filter
		want []string
	}{
		{"all newest first", Filter{}, []string{"cccc-4", "bbbb-3", "aaab-2", "aaaa-1"}},
		{"limit", Filter{Limit: 2}, []string{"cccc-4", "bbbb-3"}},
		{"since", Filter{Since: base.Add(90 * time.Minute)}, []string{"cccc-4", "bbbb-3"}},
		{"status answered", Filter{Status: StatusAnswered}, []string{"aaab-2", "aaaa-1"}},
		{"status running", Filter{Status: StatusRunning}, []string{"cccc-4"}},
		{"status failed", Filter{Status: StatusFailed}, []string{"bbbb-3"}},
		{"label any case", Filter{Label: "correct"}, []string{"aaab-2", "aaaa-1"}},
		{"corpus second in list", Filter{Corpus: "wiki"}, []string{"bbbb-3", "aaab-2", "aaaa-1"}},
		{"corpus", Filter{Corpus: "papers"}, []string{"cccc-4"}},
		{"text in answer", Filter{Text: "Carsten Olsen"}, []string{"aaab-2", "aaaa-1"}},
		{"text prefix, any case", Filter{Text: "groupl"}, []string{"bbbb-3"}},
		{"text with fts syntax", Filter{Text: `bm25" OR NEAR(`}, nil},
		{"text and corpus", Filter{Text: "established", Corpus: "news"}, []string{"bbbb-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ListSessions(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, g := range got {
				ids = append(ids, g.ID)
			}
			if !equalStrings(ids, tt.want) {
				t.Errorf("got %q, want %q", ids, tt.want)
			}
		})
	}
	if _, err := s.ListSessions(ctx, Filter{Status: "done"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown status: err = %v, want ErrInvalid", err)
	}
}

func TestSearchSessions(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	createFixture(t, s, "s1", fixture.Start)
	if err := s.CreateSession(ctx, Session{ID: "s2", Question: "Who choreographed Café Müller?"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want int
	}{
		{"pH", 1},              // question
		{"1974", 1},            // answer
		{"Sørensen", 1},        // answer, non-ASCII letter
		{"cafe muller", 1},     // diacritics folded
		{"plant ECOLOGIST", 1}, // any case
		{"eco", 1},             // word prefix
		{"Grouplogic", 0},
		{"   ", 0},
		{`"who`, 2}, // quotes are not syntax; both questions say "who"
	}
	for _, tt := range tests {
		got, err := s.SearchSessions(ctx, tt.text)
		if err != nil {
			t.Fatalf("%q: %v", tt.text, err)
		}
		if len(got) != tt.want {
			t.Errorf("SearchSessions(%q) = %d sessions, want %d", tt.text, len(got), tt.want)
		}
	}
	// The index follows updates of the answer.
	if err := s.FinishSession(ctx, "s1", StatusAnswered, "Olsen died in nineteen seventy-four", "CORRECT", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SearchSessions(ctx, "nineteen"); len(got) != 1 {
		t.Errorf("after update: %d sessions, want 1", len(got))
	}
	if got, _ := s.SearchSessions(ctx, "1974"); len(got) != 0 {
		t.Errorf("old answer still indexed: %d sessions", len(got))
	}
	// Deleting removes the session, everything stored with it, and its
	// search entry.
	if err := s.SetJudgeVerdict(ctx, "s1", 5, "agree"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SearchSessions(ctx, "nineteen"); len(got) != 0 {
		t.Errorf("deleted session still found")
	}
	for _, table := range []string{"events", "judge_verdicts", "session_corpora", "session_search", "sessions_fts"} {
		var n int
		q := "SELECT count(*) FROM " + table + " WHERE session_id = 's1'"
		if table == "sessions_fts" {
			q = "SELECT count(*) FROM sessions_fts WHERE sessions_fts MATCH 'nineteen'"
		}
		if err := s.r.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows left (%v)", table, n, err)
		}
	}
	if err := s.DeleteSession(ctx, "s1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if got, _ := s.SearchSessions(ctx, "café"); len(got) != 1 {
		t.Errorf("the other session's search entry went too")
	}
}

func TestResolveIDPrefix(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	for _, id := range []string{"abc123", "abc124", "abd000", "x*y"} {
		if err := s.CreateSession(ctx, Session{ID: id, Question: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		in, want string
		err      error
	}{
		{"abc123", "abc123", nil},
		{"abd", "abd000", nil},
		{"abc", "", ErrAmbiguous},
		{"abc12", "", ErrAmbiguous},
		{"zzz", "", ErrNotFound},
		{"x*", "x*y", nil},
		{"*", "", ErrNotFound}, // glob characters are literal
		{"", "", ErrInvalid},
	}
	for _, tt := range tests {
		got, err := s.ResolveID(ctx, tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("ResolveID(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if _, err := s.GetSession(ctx, "ab"); err == nil || !errors.Is(err, ErrAmbiguous) {
		t.Errorf("GetSession(ab) err = %v", err)
	}
}

func TestWriteErrors(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: "s", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	ev := engine.Event{Session: "s", Seq: 1, Step: 1, Time: time.Now(), Payload: engine.Thought{Text: "t"}}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"duplicate session", s.CreateSession(ctx, Session{ID: "s", Question: "q"}), ErrExists},
		{"empty id", s.CreateSession(ctx, Session{Question: "q"}), ErrInvalid},
		{"bad config", s.CreateSession(ctx, Session{ID: "t", Config: json.RawMessage("{")}), ErrInvalid},
		{"first append", s.AppendEvent(ctx, ev), nil},
		{"duplicate seq", s.AppendEvent(ctx, ev), ErrExists},
		{"unknown session", s.AppendEvent(ctx, engine.Event{Session: "nope", Seq: 1, Payload: engine.Unknown{Type: "thought"}}), ErrNotFound},
		{"no seq", s.AppendEvent(ctx, engine.Event{Session: "s", Payload: engine.Unknown{Type: "thought"}}), ErrInvalid},
		{"bad status", s.FinishSession(ctx, "s", "done", "", "", nil), ErrInvalid},
		{"bad counts", s.FinishSession(ctx, "s", StatusAnswered, "", "", json.RawMessage("nope")), ErrInvalid},
		{"finish unknown", s.FinishSession(ctx, "nope", StatusAnswered, "", "", nil), ErrNotFound},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) || (tt.want == nil) != (tt.err == nil) {
			t.Errorf("%s: err = %v, want %v", tt.name, tt.err, tt.want)
		}
	}
}

func TestEventJSONRoundTrip(t *testing.T) {
	// The store decodes stored lines into engine.Event; re-encoding must give
	// the same bytes for every event type, including a future one.
	evs := fixture.Events("rt")
	evs = append(evs,
		engine.Event{Session: "rt", Seq: 90, Time: fixture.Start, Step: 2, Payload: engine.Notice{Message: "web:duckduckgo blocked the search: HTTP 429", Source: "web:duckduckgo"}},
		engine.Event{Session: "rt", Seq: 91, Time: fixture.Start, Step: 2, Payload: engine.Observation{Source: "local:wiki", Note: "web policy is never"}},
		engine.Event{Session: "rt", Seq: 92, Time: fixture.Start, Step: 1, Payload: engine.Selection{}},
		engine.Event{Session: "rt", Seq: 93, Time: fixture.Start, Payload: engine.Final{Forced: true, Cancelled: true}},
		engine.Event{Session: "rt", Seq: 94, Time: fixture.Start.In(time.FixedZone("CET", 3600)), Payload: engine.Unknown{Type: "consent", Fields: map[string]json.RawMessage{"query": json.RawMessage(`"q"`), "source": json.RawMessage(`"web:searxng"`)}}},
	)
	for _, ev := range evs {
		b1, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var back engine.Event
		if err := json.Unmarshal(b1, &back); err != nil {
			t.Fatalf("%s: %v", ev.Type(), err)
		}
		b2, _ := json.Marshal(back)
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s event does not round-trip:\n%s\n%s", ev.Type(), b1, b2)
		}
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prefrag.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	// Leave the file in rollback-journal mode so any write by Open would show.
	if _, err := s.w.Exec("PRAGMA journal_mode = DELETE"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), path)
	var newer *NewerSchemaError
	if !errors.As(err, &newer) || !errors.Is(err, ErrNewerSchema) || newer.Found != 99 || newer.Known != SchemaVersion {
		t.Fatalf("Open = %v, want *NewerSchemaError{Found: 99}", err)
	}
	if want := "upgrade prefrag"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("message %q does not say %q", err, want)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("Open changed the newer database")
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); err == nil {
			t.Errorf("Open created %s", suffix)
		}
	}
}

func TestMigrateFromV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prefrag.db")
	ctx := context.Background()
	// Build a version-1 database by hand, as an old prefrag left it.
	old := &Store{path: path, own: currentOwner()}
	var err error
	if old.w, err = openWriterOnly(path); err != nil {
		t.Fatal(err)
	}
	if err := old.migrateTo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := old.w.Exec(`INSERT INTO sessions (id, question, answer, started_ns, status, label) VALUES
		('v1-session', 'Who introduced the concept of pH?', 'Søren Sørensen, in 1909.', ?, 'answered', 'CORRECT')`, fixture.Start.UnixNano()); err != nil {
		t.Fatal(err)
	}
	line := `{"question":"Who introduced the concept of pH?","config":null,"seq":1,"session":"v1-session","time":"2025-03-14T09:26:53Z","type":"session"}`
	if _, err := old.w.Exec(`INSERT INTO events (session_id, seq, type, time_ns, json) VALUES ('v1-session', 1, 'session', 0, ?)`, line); err != nil {
		t.Fatal(err)
	}
	if v, _ := userVersion(ctx, old.w); v != 1 {
		t.Fatalf("hand-built database has schema %d", v)
	}
	old.w.Close()

	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open v1: %v", err)
	}
	defer s.Close()
	if v, _ := userVersion(ctx, s.r); v != SchemaVersion {
		t.Errorf("schema after Open = %d, want %d", v, SchemaVersion)
	}
	rec, err := s.GetSession(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if string(rec.Lines[0]) != line || rec.Session.Status != StatusAnswered {
		t.Errorf("v1 session after migration: %+v", rec.Session)
	}
	// Tables of later versions work on the migrated data.
	if got, _ := s.SearchSessions(ctx, "Sørensen 1909"); len(got) != 1 {
		t.Errorf("old session not in the search index after migration")
	}
	if err := s.AddSessionCacheKey(ctx, "v1-session", "duckduckgo\x00ph"); err != nil {
		t.Error(err)
	}
	if res, _ := s.IntegrityCheck(ctx); res != "ok" {
		t.Errorf("integrity_check = %q", res)
	}
}

func TestPathWithSpecialCharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my data?#%20")
	s, err := Open(context.Background(), filepath.Join(dir, "pre frag.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateSession(context.Background(), Session{ID: "x", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pre frag.db")); err != nil {
		t.Errorf("database not at the literal path: %v", err)
	}
}

func equalStrings(a, b []string) bool {
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

func openWriterOnly(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", dsn(path, true))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}
