package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fixture"
)

// rootPage is the first page of a table or index, from sqlite_master.
func rootPage(t *testing.T, s *Store, name string) int {
	t.Helper()
	var page int
	if err := s.r.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = ?", name).Scan(&page); err != nil {
		t.Fatal(err)
	}
	return page
}

// TestDamagedDatabase: a truncated, overwritten or foreign file gives a
// *DamagedError that names the file and says what to do, from whichever
// call first meets the damage; nothing panics. Before the fix the errors
// were SQLite's bare "database disk image is malformed".
func TestDamagedDatabase(t *testing.T) {
	const pageSize = 4096
	overwritePage := func(table string) func(t *testing.T, path string, s *Store) []byte {
		return func(t *testing.T, path string, s *Store) []byte {
			page := rootPage(t, s, table)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			copy(b[(page-1)*pageSize:page*pageSize], bytes.Repeat([]byte{0xff}, pageSize))
			return b
		}
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, path string, s *Store) []byte // the new file content
		failAt string                                           // "open", "list" or "get"
	}{
		{"header cut short", func(t *testing.T, path string, _ *Store) []byte {
			b, _ := os.ReadFile(path)
			return b[:50]
		}, "open"},
		{"truncated to half", func(t *testing.T, path string, _ *Store) []byte {
			b, _ := os.ReadFile(path)
			return b[:len(b)/2]
		}, "open"},
		{"not an SQLite file", func(*testing.T, string, *Store) []byte {
			return bytes.Repeat([]byte("this is not a database "), 300)
		}, "open"},
		{"sessions table overwritten", overwritePage("sessions"), "list"},
		{"events table overwritten", overwritePage("events"), "get"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "prefrag.db")
			s, err := Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			createFixture(t, s, answeredID, fixture.Start)
			var ps int
			if err := s.r.QueryRow("PRAGMA page_size").Scan(&ps); err != nil || ps != pageSize {
				t.Fatalf("page size %d, %v", ps, err)
			}
			// Closing checkpoints the WAL: the main file is then complete.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err = Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			content := tc.damage(t, path, s)
			s.Close()
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}

			s, err = Open(context.Background(), path)
			if tc.failAt != "open" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer s.Close()
				_, err = s.ListSessions(ctx, Filter{})
				if tc.failAt == "get" {
					if err != nil {
						t.Fatalf("ListSessions: %v", err)
					}
					_, err = s.GetSession(ctx, answeredID)
				}
			} else if err == nil {
				s.Close()
				t.Fatal("Open accepted a damaged file")
			}
			var de *DamagedError
			if !errors.Is(err, ErrDamaged) || !errors.As(err, &de) {
				t.Fatalf("%s: %v, want a *DamagedError", tc.failAt, err)
			}
			msg := err.Error()
			for _, want := range []string{path, "is damaged", "move it aside", "backup"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q: %s", want, msg)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message is not one line: %q", msg)
			}
		})
	}
}

// TestBadEventRow: one stored event that does not decode (or is not an event
// of its session) no longer hides the session: GetSession returns every
// readable event with a *BadEventError naming the bad seqs, and the other
// sessions read as before.
func TestBadEventRow(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	const other = "1c9e55aa-second"
	createFixture(t, s, answeredID, fixture.Start)
	createFixture(t, s, other, fixture.Start.Add(1))
	// seq 3: cut JSON; seq 5: valid JSON of another session.
	if _, err := s.w.Exec(`UPDATE events SET json = '{"type":"thought","session":"`+answeredID+`","seq":3,"te' WHERE session_id = ? AND seq = 3`, answeredID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`UPDATE events SET json = (SELECT json FROM events WHERE session_id = ? AND seq = 5) WHERE session_id = ? AND seq = 5`, other, answeredID); err != nil {
		t.Fatal(err)
	}
	n := len(fixture.Events(answeredID))

	rec, err := s.GetSession(ctx, answeredID)
	var bad *BadEventError
	if !errors.As(err, &bad) || !errors.Is(err, ErrBadEvent) {
		t.Fatalf("GetSession: %v, want *BadEventError", err)
	}
	if !reflect.DeepEqual(bad.Seqs, []int{3, 5}) || bad.Session != answeredID {
		t.Errorf("bad events %v of %s, want [3 5] of %s", bad.Seqs, bad.Session, answeredID)
	}
	if rec == nil || len(rec.Events) != n-2 || len(rec.Lines) != n-2 {
		t.Fatalf("the readable events are lost: %+v", rec)
	}
	for _, ev := range rec.Events {
		if ev.Seq == 3 || ev.Seq == 5 || ev.Session != answeredID {
			t.Errorf("a bad event came through: %+v", ev)
		}
	}
	if msg := err.Error(); !strings.Contains(msg, answeredID) || !strings.Contains(msg, "seq 3, 5") || !strings.Contains(msg, "sessions export") {
		t.Errorf("message: %s", msg)
	}
	if _, err := s.GetSession(ctx, other); err != nil {
		t.Errorf("the other session: %v", err)
	}
	if list, err := s.ListSessions(ctx, Filter{}); err != nil || len(list) != 2 {
		t.Errorf("ListSessions: %d, %v", len(list), err)
	}
}
