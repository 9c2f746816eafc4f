package export

import (
	"context"
	"errors"

	"github.com/prefrag/prefrag/store"
)

// SessionReader reads one stored session (store.Store does).
type SessionReader interface {
	GetSession(ctx context.Context, id string) (*store.Record, error)
}

// Skipped is a session an export left out, and why.
type Skipped struct {
	ID  string
	Err error // matches store.ErrBadEvent or store.ErrDamaged
}

// Gather reads the sessions to export. A session that cannot be read whole —
// a stored event that does not decode (store.ErrBadEvent) or a damaged page
// of the file (store.ErrDamaged) — is left out and listed in skipped, so one
// bad row does not cost the other sessions. Any other error (an unknown or
// ambiguous id, a cancelled context) ends the gathering: nothing is
// exported.
func Gather(ctx context.Context, r SessionReader, ids []string) (recs []*store.Record, skipped []Skipped, err error) {
	for _, id := range ids {
		rec, err := r.GetSession(ctx, id)
		if err != nil && (errors.Is(err, store.ErrBadEvent) || errors.Is(err, store.ErrDamaged)) {
			skipped = append(skipped, Skipped{ID: id, Err: err})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		recs = append(recs, rec)
	}
	return recs, skipped, nil
}
