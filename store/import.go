package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/prefrag/prefrag/engine"
)

// ImportRecord stores a whole session at once, in one transaction: its row,
// its event lines exactly as given (compacted), its judge verdicts and cache
// keys. It is the way back from a JSON export (GetSession's Record is what
// an export holds). A session that was still running when exported is
// imported as interrupted: no process here owns it. The row records when
// it was imported (Session.Imported).
//
// An import is outside input: its id must be one prefrag makes
// (CheckSessionID, *BadIDError otherwise), and it must not begin the id of a
// stored session, whose short id it would take over (ErrTakesOver).
func (s *Store) ImportRecord(ctx context.Context, rec *Record) error {
	sess := rec.Session
	if err := CheckSessionID(sess.ID); err != nil {
		return fmt.Errorf("import session: %w", err)
	}
	if sess.Status == "" || sess.Status == StatusRunning {
		sess.Status = StatusInterrupted
	}
	if !validStatus(sess.Status) {
		return fmt.Errorf("import session %s: %w: unknown status %q", sess.ID, ErrInvalid, sess.Status)
	}
	blobs, err := importedJSON(sess)
	if err != nil {
		return fmt.Errorf("import session %s: %w", sess.ID, err)
	}
	rows, err := importedEvents(sess.ID, rec.Lines)
	if err != nil {
		return fmt.Errorf("import session %s: %w", sess.ID, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := checkNoTakeover(ctx, tx, sess.ID); err != nil {
			return err
		}
		return insertImported(ctx, tx, rec, sess, blobs, rows)
	})
	if errors.Is(err, ErrTakesOver) {
		return fmt.Errorf("import session %s: %w", sess.ID, err)
	}
	if isConstraint(err, sqlite3.ErrConstraintPrimaryKey) || isConstraint(err, sqlite3.ErrConstraintUnique) {
		return fmt.Errorf("import session %s: %w (the session, or one of its event seqs, is already in this database)", sess.ID, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("import session %s: %w", sess.ID, err)
	}
	return nil
}

// sessionJSON are the JSON columns of an imported session's row.
type sessionJSON struct{ config, manifest, counts string }

// importedJSON checks and compacts the JSON fields of an imported session.
func importedJSON(sess Session) (sessionJSON, error) {
	var j sessionJSON
	var err error
	if j.config, err = jsonOr(sess.Config, "{}", "config"); err != nil {
		return j, err
	}
	if j.manifest, err = jsonOr(sess.Manifest, "{}", "manifest"); err != nil {
		return j, err
	}
	if j.counts, err = jsonOr(sess.Counts, "", "counts"); err != nil {
		return j, err
	}
	if j.counts == "null" {
		j.counts = ""
	}
	return j, nil
}

// importedEvent is one event line of an import, with the columns read from
// its header, and the event it decodes to.
type importedEvent struct {
	seq, step, turn int
	typ             string
	timeNs          int64
	line            string
	ev              engine.Event
}

// importedEvents checks that every line is an event of session id and
// compacts it.
func importedEvents(id string, lines []json.RawMessage) ([]importedEvent, error) {
	rows := make([]importedEvent, 0, len(lines))
	for i, l := range lines {
		var head struct {
			Type    string    `json:"type"`
			Session string    `json:"session"`
			Seq     int       `json:"seq"`
			Step    int       `json:"step"`
			Turn    int       `json:"turn"`
			Time    time.Time `json:"time"`
		}
		if err := json.Unmarshal(l, &head); err != nil {
			return nil, fmt.Errorf("event %d: %w: %v", i+1, ErrInvalid, err)
		}
		if head.Session != id || head.Seq < 1 || head.Type == "" {
			return nil, fmt.Errorf("event %d: %w: it belongs to session %s with seq %d", i+1, ErrInvalid, QuoteID(head.Session), head.Seq)
		}
		var ev engine.Event
		if err := json.Unmarshal(l, &ev); err != nil {
			return nil, fmt.Errorf("event %d: %w: %v", i+1, ErrInvalid, err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, l); err != nil {
			return nil, fmt.Errorf("event %d: %w", i+1, err)
		}
		rows = append(rows, importedEvent{seq: head.Seq, step: head.Step, turn: max(head.Turn, 1), typ: head.Type, timeNs: head.Time.UnixNano(), line: buf.String(), ev: ev})
	}
	return rows, nil
}

// insertImported writes an imported session: its row, corpora, events,
// turns, judge verdicts and cache keys.
func insertImported(ctx context.Context, tx *sql.Tx, rec *Record, sess Session, blobs sessionJSON, rows []importedEvent) error {
	var finished any
	if sess.Finished != nil {
		finished = sess.Finished.UnixNano()
	}
	corpora := sess.Corpora
	if len(corpora) == 0 {
		corpora = corporaOf(sess.Config)
	}
	now := time.Now().UnixNano()
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions
		(id, question, answer, label, status, model, config, manifest, counts, started_ns, finished_ns, imported_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sess.ID, sess.Question, sess.Answer, sess.Label, sess.Status, sess.Model, blobs.config, blobs.manifest, blobs.counts,
		sess.Started.UnixNano(), finished, now); err != nil {
		return err
	}
	if err := insertCorpora(ctx, tx, sess.ID, corpora); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := tx.ExecContext(ctx, `INSERT INTO events (session_id, seq, type, step, time_ns, json, turn) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			sess.ID, r.seq, r.typ, r.step, r.timeNs, r.line, r.turn); err != nil {
			return err
		}
		if err := recordTurn(ctx, tx, r.ev, r.timeNs); err != nil {
			return err
		}
	}
	for seq, v := range rec.Verdicts {
		if _, err := tx.ExecContext(ctx, `INSERT INTO judge_verdicts (session_id, seq, verdict, time_ns) VALUES (?, ?, ?, ?)`,
			sess.ID, seq, v, now); err != nil {
			return fmt.Errorf("verdict on event %d: %w", seq, err)
		}
	}
	for i, k := range rec.CacheKeys {
		if err := addSessionCacheKey(ctx, tx, sess.ID, k, now+int64(i)); err != nil {
			return err
		}
	}
	return nil
}
