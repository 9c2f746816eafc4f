package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations[i] takes a database from schema version i to i+1. The schema
// version is PRAGMA user_version. Migrations are only ever appended: a
// released step is never edited, so every older database walks the same path.
var migrations = []string{
	// 0 → 1: sessions and their events.
	`
CREATE TABLE sessions (
	id          TEXT PRIMARY KEY,
	question    TEXT NOT NULL,
	model       TEXT NOT NULL DEFAULT '',
	config      TEXT NOT NULL DEFAULT '{}',
	manifest    TEXT NOT NULL DEFAULT '{}',
	started_ns  INTEGER NOT NULL,
	finished_ns INTEGER,
	status      TEXT NOT NULL DEFAULT 'running',
	answer      TEXT NOT NULL DEFAULT '',
	label       TEXT NOT NULL DEFAULT '',
	counts      TEXT NOT NULL DEFAULT '',
	owner_host  TEXT NOT NULL DEFAULT '',
	owner_pid   INTEGER NOT NULL DEFAULT 0,
	owner_start INTEGER NOT NULL DEFAULT 0,
	owner_boot  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_by_started ON sessions(started_ns DESC);
CREATE INDEX sessions_by_status ON sessions(status);

CREATE TABLE session_corpora (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	position   INTEGER NOT NULL,
	corpus     TEXT NOT NULL,
	PRIMARY KEY (session_id, position)
) WITHOUT ROWID;
CREATE INDEX session_corpora_by_corpus ON session_corpora(corpus);

CREATE TABLE events (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	type       TEXT NOT NULL,
	step       INTEGER NOT NULL DEFAULT 0,
	time_ns    INTEGER NOT NULL,
	json       TEXT NOT NULL,
	PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
`,
	// 1 → 2: the web cache and which cache entries a session used.
	`
CREATE TABLE web_cache (
	key       TEXT PRIMARY KEY,
	docs      TEXT NOT NULL,
	stored_ns INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE session_cache_keys (
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	key        TEXT NOT NULL,
	first_ns   INTEGER NOT NULL,
	PRIMARY KEY (session_id, key)
) WITHOUT ROWID;
`,
	// 2 → 3: full-text search over question and answer (FTS4: built into
	// mattn/go-sqlite3 without build tags), and the analyst's verdicts on
	// selection-judge decisions.
	`
CREATE VIRTUAL TABLE sessions_fts USING fts4(
	question, answer,
	tokenize=unicode61 "remove_diacritics=2"
);
-- The FTS docid of each session. An INTEGER PRIMARY KEY survives VACUUM,
-- which the rowid of a table with a TEXT key need not.
CREATE TABLE session_search (
	docid      INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL UNIQUE
);
INSERT INTO session_search(session_id) SELECT id FROM sessions ORDER BY started_ns;
INSERT INTO sessions_fts(docid, question, answer)
	SELECT ss.docid, s.question, s.answer FROM sessions s JOIN session_search ss ON ss.session_id = s.id;

CREATE TRIGGER sessions_fts_insert AFTER INSERT ON sessions BEGIN
	INSERT INTO session_search(session_id) VALUES (new.id);
	INSERT INTO sessions_fts(docid, question, answer)
		VALUES ((SELECT docid FROM session_search WHERE session_id = new.id), new.question, new.answer);
END;
CREATE TRIGGER sessions_fts_update AFTER UPDATE OF question, answer ON sessions
	WHEN old.question IS NOT new.question OR old.answer IS NOT new.answer BEGIN
	UPDATE sessions_fts SET question = new.question, answer = new.answer
		WHERE docid = (SELECT docid FROM session_search WHERE session_id = new.id);
END;
CREATE TRIGGER sessions_fts_delete AFTER DELETE ON sessions BEGIN
	DELETE FROM sessions_fts WHERE docid = (SELECT docid FROM session_search WHERE session_id = old.id);
	DELETE FROM session_search WHERE session_id = old.id;
END;

CREATE TABLE judge_verdicts (
	session_id TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	verdict    TEXT NOT NULL,
	time_ns    INTEGER NOT NULL,
	PRIMARY KEY (session_id, seq),
	FOREIGN KEY (session_id, seq) REFERENCES events(session_id, seq) ON DELETE CASCADE
) WITHOUT ROWID;
`,
	// 3 → 4: threads. A session holds turns (a question and its follow-ups);
	// every existing session becomes a thread of one turn (turns.go).
	migrationTurns,
	// 4 → 5: when a session was imported (0: made here). A re-run of an
	// imported session uses no server its file names without a flag.
	`ALTER TABLE sessions ADD COLUMN imported_ns INTEGER NOT NULL DEFAULT 0;`,
}

// SchemaVersion is the schema this binary writes.
var SchemaVersion = len(migrations)

func userVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// migrateTo brings the database up to schema version target, one migration
// per transaction. Each transaction re-reads the version after taking the
// write lock, so two processes opening a fresh database at once do not both
// run the same step.
func (s *Store) migrateTo(ctx context.Context, target int) error {
	for {
		done := false
		err := s.write(ctx, func(tx *sql.Tx) error {
			v, err := userVersion(ctx, tx)
			if err != nil {
				return err
			}
			if v > len(migrations) {
				return &NewerSchemaError{Path: s.path, Found: v, Known: len(migrations)}
			}
			if v >= target {
				done = true
				return nil
			}
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
			}
			// PRAGMA does not take bound parameters; v+1 is our own integer.
			if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
				return fmt.Errorf("set schema version %d: %w", v+1, err)
			}
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}
