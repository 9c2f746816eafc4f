package export

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/prefrag/prefrag/store"
)

// TestGatherSkipsUnreadableSessions: one bad event row costs its own
// session only; the others are gathered and the skipped one is named. An
// unknown id still ends the gathering (the user's mistake, not damage).
func TestGatherSkipsUnreadableSessions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "prefrag.db")
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ids := []string{"aaaa-first", "bbbb-damaged", "cccc-third"}
	for _, id := range ids {
		storeCaseStudy(t, s, id)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE events SET json = '{"type": "thou' WHERE session_id = ? AND seq = 4`, ids[1]); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name        string
		ids         []string
		wantRecs    []string
		wantSkipped []string
		wantErr     error
	}{
		{"one damaged among three", ids, []string{ids[0], ids[2]}, []string{ids[1]}, nil},
		{"only the damaged one", ids[1:2], nil, []string{ids[1]}, nil},
		{"an unknown id", []string{ids[0], "zzzz-unknown"}, nil, nil, store.ErrNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs, skipped, err := Gather(ctx, s, tc.ids)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.Session.ID)
			}
			if !equal(got, tc.wantRecs) {
				t.Errorf("gathered %v, want %v", got, tc.wantRecs)
			}
			var sk []string
			for _, x := range skipped {
				sk = append(sk, x.ID)
				if !errors.Is(x.Err, store.ErrBadEvent) {
					t.Errorf("skipped %s for %v, want a bad event", x.ID, x.Err)
				}
			}
			if !equal(sk, tc.wantSkipped) {
				t.Errorf("skipped %v, want %v", sk, tc.wantSkipped)
			}
		})
	}
}

func equal(a, b []string) bool {
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
