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

// SetJudgeVerdict records the analyst's verdict on one selection-judge
// decision (the selection event seq of session sessionID), for preference
// pairs. Any short text is accepted ("agree", "disagree", "true", …); an
// empty verdict removes it.
func (s *Store) SetJudgeVerdict(ctx context.Context, sessionID string, seq int, verdict string) error {
	if len(verdict) > 200 {
		return fmt.Errorf("judge verdict: %w: at most 200 bytes", ErrInvalid)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var line string
		err := tx.QueryRowContext(ctx, "SELECT json FROM events WHERE session_id = ? AND seq = ?", sessionID, seq).Scan(&line)
		if errors.Is(err, sql.ErrNoRows) {
			return &NotFoundError{What: "event", ID: fmt.Sprintf("%s#%d", sessionID, seq)}
		}
		if err != nil {
			return err
		}
		var ev engine.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return fmt.Errorf("event %d: %w", seq, err)
		}
		if _, ok := ev.Payload.(engine.Selection); !ok {
			return fmt.Errorf("%w: event %d is a %s event, not a selection", ErrInvalid, seq, ev.Type())
		}
		if verdict == "" {
			_, err = tx.ExecContext(ctx, "DELETE FROM judge_verdicts WHERE session_id = ? AND seq = ?", sessionID, seq)
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO judge_verdicts (session_id, seq, verdict, time_ns) VALUES (?, ?, ?, ?)
			ON CONFLICT(session_id, seq) DO UPDATE SET verdict = excluded.verdict, time_ns = excluded.time_ns`,
			sessionID, seq, verdict, time.Now().UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("judge verdict on %s#%d: %w", sessionID, seq, err)
	}
	return nil
}
