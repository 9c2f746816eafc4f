package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// migrationTurns (schema 3 → 4) gives sessions turns: a thread is a first
// question and its follow-ups. The turns table is an index of the events
// (a follow-up's rewrite event opens a turn, a final event closes it) kept
// for listing; the events stay the record. Every existing session becomes
// one turn, with its question, answer, label and counts.
const migrationTurns = `
ALTER TABLE events ADD COLUMN turn INTEGER NOT NULL DEFAULT 1;

CREATE TABLE turns (
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn        INTEGER NOT NULL,
	question    TEXT NOT NULL,
	rewritten   TEXT NOT NULL DEFAULT '',
	first_seq   INTEGER NOT NULL DEFAULT 1,
	started_ns  INTEGER NOT NULL,
	finished_ns INTEGER,
	answer      TEXT NOT NULL DEFAULT '',
	label       TEXT NOT NULL DEFAULT '',
	counts      TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (session_id, turn)
) WITHOUT ROWID;

INSERT INTO turns (session_id, turn, question, first_seq, started_ns, finished_ns, answer, label, counts)
	SELECT id, 1, question, 1, started_ns, finished_ns, answer, label, counts FROM sessions;

CREATE TRIGGER sessions_first_turn AFTER INSERT ON sessions BEGIN
	INSERT INTO turns (session_id, turn, question, first_seq, started_ns)
		VALUES (new.id, 1, new.question, 1, new.started_ns);
END;
`

// Turn is one question of a session's thread.
type Turn struct {
	Turn int `json:"turn"`
	// Question is as asked; Rewritten is the standalone question a
	// follow-up was rewritten into ("" for the first turn).
	Question  string          `json:"question"`
	Rewritten string          `json:"rewritten,omitempty"`
	FirstSeq  int             `json:"first_seq"`
	Started   time.Time       `json:"started"`
	Finished  *time.Time      `json:"finished"`
	Answer    string          `json:"answer"`
	Label     string          `json:"label"`
	Counts    json.RawMessage `json:"counts"`
}

// recordTurn keeps the turns table in step with an appended event: a
// rewrite event opens its turn, a final event records the turn's answer,
// and the fatal error that ends a failed turn records its counts.
func recordTurn(ctx context.Context, tx *sql.Tx, ev engine.Event, timeNs int64) error {
	switch p := ev.Payload.(type) {
	case engine.Rewrite:
		_, err := tx.ExecContext(ctx, `INSERT INTO turns (session_id, turn, question, rewritten, first_seq, started_ns)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id, turn) DO UPDATE SET question = excluded.question, rewritten = excluded.rewritten,
				first_seq = excluded.first_seq, started_ns = excluded.started_ns`,
			ev.Session, engine.TurnOf(ev), p.Original, p.Rewritten, ev.Seq, timeNs)
		return err
	case engine.Final:
		counts := engine.Counts{}
		if p.Counts != nil {
			counts = *p.Counts
		}
		cj, err := json.Marshal(counts)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE turns SET answer = ?, label = ?, counts = ?, finished_ns = ? WHERE session_id = ? AND turn = ?`,
			p.Answer, p.Label, string(cj), timeNs, ev.Session, engine.TurnOf(ev))
		return err
	case engine.Notice:
		if !p.Fatal || p.Counts == nil {
			return nil
		}
		cj, err := json.Marshal(*p.Counts)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE turns SET counts = ?, finished_ns = ? WHERE session_id = ? AND turn = ?`,
			string(cj), timeNs, ev.Session, engine.TurnOf(ev))
		return err
	case engine.SessionStart, engine.Thought, engine.Action, engine.Retrieval, engine.Selection, engine.Observation,
		engine.Answer, engine.Supplement, engine.Gate, engine.Refinement, engine.ThreadContext, engine.Evidence, engine.Token:
		// Nothing a turn's row keeps.
	}
	return nil
}

// ContinueSession makes a stored session running again, owned by this
// process, for a follow-up question: its events go on after the last
// stored one and FinishSession ends it again. A session whose process is
// still running it is refused (*RunningError, ErrRunning).
func (s *Store) ContinueSession(ctx context.Context, id string) error {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.checkNotRunning(ctx, tx, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET status = ?, finished_ns = NULL,
			owner_host = ?, owner_pid = ?, owner_start = ?, owner_boot = ? WHERE id = ?`,
			StatusRunning, s.own.Host, s.own.PID, int64(s.own.Start), s.own.Boot, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("continue session %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("continue session: %w", &NotFoundError{What: "session", ID: id})
	}
	return nil
}

// Turns lists the turns of a session's thread, in order.
func (s *Store) Turns(ctx context.Context, id string) ([]Turn, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT turn, question, rewritten, first_seq, started_ns, finished_ns, answer, label, counts
		FROM turns WHERE session_id = ? ORDER BY turn`, id)
	if err != nil {
		return nil, s.damaged(fmt.Errorf("read turns of %s: %w", id, err))
	}
	defer rows.Close()
	out := []Turn{}
	for rows.Next() {
		var (
			t        Turn
			started  int64
			finished sql.NullInt64
			counts   string
		)
		if err := rows.Scan(&t.Turn, &t.Question, &t.Rewritten, &t.FirstSeq, &started, &finished, &t.Answer, &t.Label, &counts); err != nil {
			return nil, fmt.Errorf("read turns of %s: %w", id, err)
		}
		t.Started = time.Unix(0, started).UTC()
		if finished.Valid {
			f := time.Unix(0, finished.Int64).UTC()
			t.Finished = &f
		}
		t.Counts = rawOrNil(counts)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.damaged(fmt.Errorf("read turns of %s: %w", id, err))
	}
	if len(out) == 0 {
		if _, err := s.ResolveID(ctx, id); errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return out, nil
}

// LatestSession is the id of the session with the latest activity: the one
// started or finished (a follow-up finishes it again) last.
func (s *Store) LatestSession(ctx context.Context) (string, error) {
	var id string
	err := s.r.QueryRowContext(ctx, `SELECT id FROM sessions
		ORDER BY max(started_ns, COALESCE(finished_ns, started_ns)) DESC, id DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", &NotFoundError{What: "session", ID: "last"}
	}
	if err != nil {
		return "", s.damaged(fmt.Errorf("find the latest session: %w", err))
	}
	return id, nil
}
