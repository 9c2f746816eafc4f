package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/prefrag/prefrag/engine"
)

// Session statuses (CONTRACT.md, `sessions list`).
const (
	StatusRunning     = "running"
	StatusAnswered    = "answered"
	StatusFailed      = "failed"
	StatusCancelled   = "cancelled"
	StatusInterrupted = "interrupted"
)

// Statuses lists every session status.
var Statuses = []string{StatusRunning, StatusAnswered, StatusFailed, StatusCancelled, StatusInterrupted}

func validStatus(s string) bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// Session is one stored run. Its JSON form is what `sessions list --json`
// prints, one object per line.
type Session struct {
	ID       string     `json:"id"`
	Question string     `json:"question"`
	Answer   string     `json:"answer"`
	Label    string     `json:"label"`
	Status   string     `json:"status"`
	Model    string     `json:"model"`
	Started  time.Time  `json:"started"`
	Finished *time.Time `json:"finished"` // null while running
	Corpora  []string   `json:"corpora"`
	// Counts is the final event's counts object, null until there is one.
	Counts json.RawMessage `json:"counts"`
	// Config is the effective settings (engine.RunConfig as JSON).
	Config json.RawMessage `json:"config"`
	// Manifest describes the corpora and sources as they were for this run
	// (for reproducible re-runs); its shape belongs to the caller.
	Manifest json.RawMessage `json:"manifest"`
	// Owner is the process that ran (or runs) the session. It is not
	// exported: it says nothing about the session once it is over.
	Owner Owner `json:"-"`
	// Imported is when the session was imported (`sessions import`); zero
	// for a session made here. Not exported: it says where the record came
	// from on this machine, not what the session was.
	Imported time.Time `json:"-"`
	// Turns is the number of questions in the session's thread (1 without
	// follow-ups); LastQuestion is the latest follow-up as asked ("" for
	// a single question).
	Turns        int    `json:"turns"`
	LastQuestion string `json:"last_question,omitempty"`
}

// CreateSession records a new session with status running, owned by this
// process. Started defaults to now; when Corpora is empty it is taken from
// Config's "corpora" list.
func (s *Store) CreateSession(ctx context.Context, sess Session) error {
	if sess.ID == "" {
		return fmt.Errorf("create session: %w: empty session id", ErrInvalid)
	}
	if sess.Started.IsZero() {
		sess.Started = time.Now()
	}
	config, err := jsonOr(sess.Config, "{}", "config")
	if err != nil {
		return fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	manifest, err := jsonOr(sess.Manifest, "{}", "manifest")
	if err != nil {
		return fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	corpora := sess.Corpora
	if len(corpora) == 0 {
		corpora = corporaOf(sess.Config)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions
			(id, question, model, config, manifest, started_ns, status, owner_host, owner_pid, owner_start, owner_boot)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sess.ID, sess.Question, sess.Model, config, manifest, sess.Started.UnixNano(), StatusRunning,
			s.own.Host, s.own.PID, int64(s.own.Start), s.own.Boot)
		if err != nil {
			return err
		}
		return insertCorpora(ctx, tx, sess.ID, corpora)
	})
	if isConstraint(err, sqlite3.ErrConstraintPrimaryKey) || isConstraint(err, sqlite3.ErrConstraintUnique) {
		return fmt.Errorf("create session %s: %w", sess.ID, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return nil
}

func insertCorpora(ctx context.Context, tx *sql.Tx, id string, corpora []string) error {
	for i, c := range corpora {
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_corpora (session_id, position, corpus) VALUES (?, ?, ?)`, id, i, c); err != nil {
			return err
		}
	}
	return nil
}

// corporaOf reads the "corpora" list of an engine.RunConfig JSON object.
func corporaOf(config json.RawMessage) []string {
	var c struct {
		Corpora []string `json:"corpora"`
	}
	if len(config) == 0 || json.Unmarshal(config, &c) != nil {
		return nil
	}
	return c.Corpora
}

// jsonOr validates and compacts raw, or returns def when raw is empty.
func jsonOr(raw json.RawMessage, def, what string) (string, error) {
	if len(raw) == 0 {
		return def, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "", fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, what)
	}
	return b.String(), nil
}

func isConstraint(err error, code sqlite3.ErrNoExtended) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == code
}

// AppendEvent stores one event of a running session in its own small
// transaction, as the JSON line json.Marshal(ev) gives (the line `ask --json`
// prints). Token events are never stored: they are dropped here. A final
// event also records its answer, label and counts on the session, so a
// session killed right after its answer still shows it.
func (s *Store) AppendEvent(ctx context.Context, ev engine.Event) error {
	return s.AppendEvents(ctx, []engine.Event{ev})
}

// AppendEvents stores events as AppendEvent does, all in one transaction
// (one commit): either every one of them is stored or none is.
func (s *Store) AppendEvents(ctx context.Context, evs []engine.Event) error {
	type row struct {
		ev   engine.Event
		line string
		t    int64
	}
	rows := make([]row, 0, len(evs))
	for _, ev := range evs {
		if _, token := ev.Payload.(engine.Token); token {
			continue
		}
		if ev.Session == "" || ev.Seq < 1 || ev.Type() == "" {
			return fmt.Errorf("append event: %w: an event needs a type, a session and seq ≥ 1 (got type %q, session %q, seq %d)", ErrInvalid, ev.Type(), ev.Session, ev.Seq)
		}
		line, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("append event %d of session %s: %w", ev.Seq, ev.Session, err)
		}
		t := ev.Time
		if t.IsZero() {
			t = time.Now()
		}
		rows = append(rows, row{ev: ev, line: string(line), t: t.UnixNano()})
	}
	if len(rows) == 0 {
		return nil
	}
	failed := rows[0].ev // the event the failing statement was about
	err := s.write(ctx, func(tx *sql.Tx) error {
		for _, r := range rows {
			ev := r.ev
			failed = ev
			if _, err := tx.ExecContext(ctx, `INSERT INTO events (session_id, seq, type, step, time_ns, json, turn) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				ev.Session, ev.Seq, ev.Type(), ev.Step, r.t, r.line, engine.TurnOf(ev)); err != nil {
				return err
			}
			if err := recordTurn(ctx, tx, ev, r.t); err != nil {
				return err
			}
			f, ok := ev.Payload.(engine.Final)
			if !ok {
				continue
			}
			counts := engine.Counts{}
			if f.Counts != nil {
				counts = *f.Counts
			}
			cj, err := json.Marshal(counts)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET answer = ?, counts = ?, label = CASE WHEN ? = '' THEN label ELSE ? END WHERE id = ?`,
				f.Answer, string(cj), f.Label, f.Label, ev.Session); err != nil {
				return err
			}
		}
		return nil
	})
	ev := failed
	switch {
	case err == nil:
		return nil
	case isConstraint(err, sqlite3.ErrConstraintForeignKey):
		return fmt.Errorf("append event %d: %w", ev.Seq, &NotFoundError{What: "session", ID: ev.Session})
	case isConstraint(err, sqlite3.ErrConstraintPrimaryKey):
		return fmt.Errorf("append event %d of session %s: %w: that seq is already stored", ev.Seq, ev.Session, ErrExists)
	}
	return fmt.Errorf("append event %d of session %s: %w", ev.Seq, ev.Session, err)
}

// FinishSession records how a session ended: its status (one of Statuses),
// answer, self-evaluation label and counts (JSON, may be empty).
func (s *Store) FinishSession(ctx context.Context, id, status, answer, label string, counts json.RawMessage) error {
	if !validStatus(status) {
		return fmt.Errorf("finish session %s: %w: unknown status %q (one of %s)", id, ErrInvalid, status, strings.Join(Statuses, ", "))
	}
	cj, err := jsonOr(counts, "", "counts")
	if err != nil {
		return fmt.Errorf("finish session %s: %w", id, err)
	}
	var finished any = time.Now().UnixNano()
	if status == StatusRunning {
		finished = nil
	}
	var n int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET status = ?, answer = ?, label = ?,
			counts = CASE WHEN ? = '' THEN counts ELSE ? END, finished_ns = ? WHERE id = ?`,
			status, answer, label, cj, cj, finished, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("finish session %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("finish session: %w", &NotFoundError{What: "session", ID: id})
	}
	return nil
}

// sessionColumns are read by scanSession, in this order.
const sessionColumns = `s.id, s.question, s.answer, s.label, s.status, s.model, s.started_ns, s.finished_ns,
	(SELECT group_concat(corpus, char(31)) FROM (SELECT corpus FROM session_corpora c WHERE c.session_id = s.id ORDER BY position)),
	s.counts, s.config, s.manifest, s.owner_host, s.owner_pid, s.owner_start, s.owner_boot, s.imported_ns,
	(SELECT count(*) FROM turns t WHERE t.session_id = s.id),
	COALESCE((SELECT question FROM turns t WHERE t.session_id = s.id ORDER BY turn DESC LIMIT 1), s.question)`

type scanner interface{ Scan(dest ...any) error }

func scanSession(sc scanner) (Session, error) {
	var (
		ss                   Session
		started              int64
		finished             sql.NullInt64
		corpora              sql.NullString
		counts, config, mani string
		ownerStart, imported int64
	)
	err := sc.Scan(&ss.ID, &ss.Question, &ss.Answer, &ss.Label, &ss.Status, &ss.Model, &started, &finished,
		&corpora, &counts, &config, &mani, &ss.Owner.Host, &ss.Owner.PID, &ownerStart, &ss.Owner.Boot, &imported,
		&ss.Turns, &ss.LastQuestion)
	if err != nil {
		return ss, err
	}
	ss.Started = time.Unix(0, started).UTC()
	if finished.Valid {
		f := time.Unix(0, finished.Int64).UTC()
		ss.Finished = &f
	}
	ss.Corpora = []string{}
	if corpora.Valid && corpora.String != "" {
		ss.Corpora = strings.Split(corpora.String, "\x1f")
	}
	ss.Owner.Start = uint64(ownerStart)
	if imported != 0 {
		ss.Imported = time.Unix(0, imported).UTC()
	}
	if ss.Turns <= 1 {
		ss.LastQuestion = ""
	}
	ss.Counts = rawOrNil(counts)
	ss.Config = rawOrNil(config)
	ss.Manifest = rawOrNil(mani)
	return ss, nil
}

func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// DeleteSession removes a session with its events, verdicts, cache-key
// records and search entry. Cached web results stay (other sessions may use
// them). A running session whose process is alive is not deleted
// (*RunningError, ErrRunning).
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.checkNotRunning(ctx, tx, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("delete session: %w", &NotFoundError{What: "session", ID: id})
	}
	return nil
}
