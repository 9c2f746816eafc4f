// Package export writes stored sessions out in the formats of its table
// Formats (formats.go) — Markdown reports, HTML pages, JSON documents, JSON
// Lines and selection-judge preference pairs —, reads JSON exports back in,
// and writes export files without overwriting or escaping the chosen folder.
package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/exportmark"
	"github.com/prefrag/prefrag/store"
)

// ErrFormat is matched when a format name or an import file is not one this
// package knows.
var ErrFormat = errors.New("unknown export format")

// document is one session of a JSON export.
type document struct {
	Session store.Session `json:"session"`
	// Privacy is what each turn could send off the machine (privacy.go),
	// as its session and rewrite events recorded it.
	Privacy []turnPrivacy     `json:"privacy,omitempty"`
	Events  []json.RawMessage `json:"events"`
	// Extensions: what else the store holds about the session.
	Verdicts  map[int]string `json:"judge_verdicts,omitempty"`
	CacheKeys []string       `json:"cache_keys,omitempty"`
}

func toDocument(rec *store.Record) document {
	d := document{Session: rec.Session, Privacy: privacyOf(rec), Events: rec.Lines, CacheKeys: rec.CacheKeys}
	if d.Events == nil {
		d.Events = []json.RawMessage{}
	}
	if len(rec.Verdicts) > 0 {
		d.Verdicts = rec.Verdicts
	}
	return d
}

// JSON writes {"session": {…}, "events": […]} for one record, an array of
// those for several (or none). The session object is indented; each event
// stays on one line, byte for byte as `ask --json` printed it.
func JSON(w io.Writer, recs ...*store.Record) error {
	var buf bytes.Buffer
	if len(recs) == 1 {
		if err := writeDocument(&buf, toDocument(recs[0]), ""); err != nil {
			return err
		}
	} else {
		buf.WriteString("[")
		for i, rec := range recs {
			if i > 0 {
				buf.WriteString(",")
			}
			buf.WriteString("\n  ")
			if err := writeDocument(&buf, toDocument(rec), "  "); err != nil {
				return err
			}
		}
		if len(recs) > 0 {
			buf.WriteString("\n")
		}
		buf.WriteString("]")
	}
	buf.WriteString("\n")
	_, err := w.Write(buf.Bytes())
	return err
}

func writeDocument(buf *bytes.Buffer, d document, indent string) error {
	session, err := marshalIndent(d.Session, indent+"  ")
	if err != nil {
		return fmt.Errorf("export session %s: %w", d.Session.ID, err)
	}
	fmt.Fprintf(buf, "{\n%s  %q: %d,", indent, exportmark.Key, exportmark.Version)
	buf.WriteString("\n" + indent + `  "session": `)
	buf.Write(session)
	if len(d.Privacy) > 0 {
		p, err := marshalIndent(d.Privacy, indent+"  ")
		if err != nil {
			return fmt.Errorf("export session %s: %w", d.Session.ID, err)
		}
		buf.WriteString(",\n" + indent + `  "privacy": `)
		buf.Write(p)
	}
	buf.WriteString(",\n" + indent + `  "events": [`)
	for i, line := range d.Events {
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n" + indent + "    ")
		if err := json.Compact(buf, line); err != nil {
			return fmt.Errorf("export session %s: event %d: %w", d.Session.ID, i+1, err)
		}
	}
	if len(d.Events) > 0 {
		buf.WriteString("\n" + indent + "  ")
	}
	buf.WriteString("]")
	if len(d.Verdicts) > 0 {
		v, err := marshalIndent(d.Verdicts, indent+"  ")
		if err != nil {
			return err
		}
		buf.WriteString(",\n" + indent + `  "judge_verdicts": `)
		buf.Write(v)
	}
	if len(d.CacheKeys) > 0 {
		k, err := marshalIndent(d.CacheKeys, indent+"  ")
		if err != nil {
			return err
		}
		buf.WriteString(",\n" + indent + `  "cache_keys": `)
		buf.Write(k)
	}
	buf.WriteString("\n" + indent + "}")
	return nil
}

// marshalIndent is json.MarshalIndent without HTML escaping, so questions
// with < > & stay readable.
func marshalIndent(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// jsonlLine is one session of a JSON Lines export.
type jsonlLine struct {
	Mark     int             `json:"prefrag_export"` // exportmark.Version
	ID       string          `json:"id"`
	Question string          `json:"question"`
	Answer   string          `json:"answer"`
	Label    string          `json:"label"`
	Status   string          `json:"status"`
	Counts   json.RawMessage `json:"counts"`
	Model    string          `json:"model"`
	Started  time.Time       `json:"started"`
	Finished *time.Time      `json:"finished"`
	Corpora  []string        `json:"corpora"`
	Turns    int             `json:"turns"` // questions in the session's thread
	// Privacy is what each turn could send off the machine (privacy.go).
	Privacy    []turnPrivacy     `json:"privacy,omitempty"`
	Trajectory []json.RawMessage `json:"trajectory"`
}

// JSONL writes one line per session: its summary and its events as
// "trajectory".
func JSONL(w io.Writer, recs ...*store.Record) error {
	for _, rec := range recs {
		s := rec.Session
		line := jsonlLine{Mark: exportmark.Version, ID: s.ID, Question: s.Question, Answer: s.Answer, Label: s.Label, Status: s.Status,
			Counts: s.Counts, Model: s.Model, Started: s.Started, Finished: s.Finished, Corpora: s.Corpora,
			Turns: max(s.Turns, 1), Privacy: privacyOf(rec), Trajectory: rec.Lines}
		if line.Trajectory == nil {
			line.Trajectory = []json.RawMessage{}
		}
		if err := writeLine(w, line); err != nil {
			return fmt.Errorf("export session %s: %w", s.ID, err)
		}
	}
	return nil
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Pair is one selection-judge decision with its inputs and output: a
// preference-pair record for training or evaluating a judge.
type Pair struct {
	// Mark is exportmark.Version in an export file (first, so that
	// `prefrag index` recognises the file).
	Mark    int    `json:"prefrag_export,omitempty"`
	Session string `json:"session"`
	Seq     int    `json:"seq"`
	Step    int    `json:"step"`
	// Turn is the question of a thread the decision belongs to (omitted
	// for the first).
	Turn int `json:"turn,omitempty"`
	// Inputs, exactly as the judge saw them: Question is the standalone
	// question of the decision's turn.
	Question      string `json:"question"`
	JudgeObtained string `json:"judge_obtained"`
	JudgeNew      string `json:"judge_new"`
	// JudgeRepeated names the documents retrieved again, which the judge
	// was told it had already obtained (omitted when none).
	JudgeRepeated string `json:"judge_repeated,omitempty"`
	// Context of the decision.
	Query      string `json:"query"`  // the query of the judged retrieval
	Source     string `json:"source"` // the judged source
	JudgeModel string `json:"judge_model"`
	// Output.
	Analysis   string  `json:"analysis"`
	Status     bool    `json:"status"`
	NextSource *string `json:"next_source"`
	// The analyst's verdict on this decision, when there is one.
	UserVerdict string `json:"user_verdict,omitempty"`
	// How the session ended, as a weak outcome signal.
	SessionLabel  string `json:"session_label"`
	SessionStatus string `json:"session_status"`
}

// Pairs extracts one Pair per selection event of rec.
func Pairs(rec *store.Record) []Pair {
	question := rec.Session.Question
	judgeModel := rec.Session.Model
	for _, ev := range rec.Events {
		if s, ok := ev.Payload.(engine.SessionStart); ok {
			if s.Question != "" {
				question = s.Question
			}
			if s.Config != nil && s.Config.JudgeModel != "" {
				judgeModel = s.Config.JudgeModel
			} else if s.Config != nil && s.Config.Model != "" {
				judgeModel = s.Config.Model
			}
		}
	}
	var out []Pair
	first := question
	for i, ev := range rec.Events {
		if rw, ok := ev.Payload.(engine.Rewrite); ok {
			question = rw.Rewritten
		}
		sel, ok := ev.Payload.(engine.Selection)
		if !ok || sel.NothingNew {
			continue // a search that brought nothing new asked no judge
		}
		q := question
		if engine.TurnOf(ev) == 1 {
			q = first
		}
		p := Pair{Session: rec.Session.ID, Seq: ev.Seq, Step: ev.Step, Turn: ev.Turn, Question: q,
			JudgeObtained: sel.JudgeObtained, JudgeNew: sel.JudgeNew, JudgeRepeated: sel.JudgeRepeated, Source: sel.Source, JudgeModel: judgeModel,
			Analysis: sel.Analysis, Status: sel.Status != nil && *sel.Status, NextSource: sel.NextSource,
			UserVerdict: rec.Verdicts[ev.Seq], SessionLabel: rec.Session.Label, SessionStatus: rec.Session.Status}
		// The judged retrieval is the last one before the decision.
		for j := i - 1; j >= 0; j-- {
			r, ok := rec.Events[j].Payload.(engine.Retrieval)
			if ok && (p.Source == "" || r.Source == p.Source) {
				p.Query = r.Query
				if p.Source == "" {
					p.Source = r.Source
				}
				break
			}
		}
		out = append(out, p)
	}
	return out
}

// PreferencePairs writes one JSON line per selection-judge decision.
func PreferencePairs(w io.Writer, recs ...*store.Record) error {
	for _, rec := range recs {
		for _, p := range Pairs(rec) {
			p.Mark = exportmark.Version
			if err := writeLine(w, p); err != nil {
				return fmt.Errorf("export pairs of session %s: %w", rec.Session.ID, err)
			}
		}
	}
	return nil
}

// ReadJSON reads a JSON export (one document or an array of them) back into
// records. Events are decoded as well as kept verbatim.
func ReadJSON(r io.Reader) ([]*store.Record, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimSpace(data)
	var docs []document
	switch {
	case len(data) > 0 && data[0] == '[':
		err = json.Unmarshal(data, &docs)
	case len(data) > 0 && data[0] == '{':
		var d document
		err = json.Unmarshal(data, &d)
		docs = []document{d}
	default:
		return nil, fmt.Errorf("%w: a JSON export starts with { or [", ErrFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: not a prefrag JSON export: %v", ErrFormat, err)
	}
	recs := make([]*store.Record, 0, len(docs))
	for _, d := range docs {
		if d.Session.ID == "" {
			return nil, fmt.Errorf("%w: a session without an id", ErrFormat)
		}
		rec := &store.Record{Session: d.Session, Verdicts: d.Verdicts, CacheKeys: d.CacheKeys}
		for i, raw := range d.Events {
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil {
				return nil, fmt.Errorf("%w: session %s event %d: %v", ErrFormat, store.QuoteID(d.Session.ID), i+1, err)
			}
			var ev engine.Event
			if err := json.Unmarshal(compact.Bytes(), &ev); err != nil {
				return nil, fmt.Errorf("%w: session %s event %d: %v", ErrFormat, store.QuoteID(d.Session.ID), i+1, err)
			}
			rec.Lines = append(rec.Lines, json.RawMessage(compact.Bytes()))
			rec.Events = append(rec.Events, ev)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// Import reads a JSON export and stores its sessions in st (each session in
// one transaction). It returns the ids it stored; it stops at the first
// session it cannot store (for example one already in the database). A file
// with a session id prefrag does not make (store.CheckSessionID), or the
// same id twice, is refused before anything is stored.
func Import(ctx context.Context, st *store.Store, r io.Reader) ([]string, error) {
	recs, err := ReadJSON(r)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(recs))
	for i, rec := range recs {
		id := rec.Session.ID
		if err := store.CheckSessionID(id); err != nil {
			return nil, fmt.Errorf("session %d of %d: %w; nothing was imported (a JSON export as prefrag wrote it carries only ids prefrag makes)", i+1, len(recs), err)
		}
		if seen[id] {
			return nil, fmt.Errorf("%w: session %d of %d repeats the id %s; nothing was imported", ErrFormat, i+1, len(recs), id)
		}
		seen[id] = true
	}
	var ids []string
	for _, rec := range recs {
		if err := st.ImportRecord(ctx, rec); err != nil {
			return ids, err
		}
		ids = append(ids, rec.Session.ID)
	}
	return ids, nil
}
