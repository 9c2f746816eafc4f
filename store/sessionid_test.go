package store

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

// An imported session's id must be one prefrag makes: anything else is
// refused with the reason, and the refusal never prints the id's control
// characters or all of a long id.
func TestImportRefusesForeignIDs(t *testing.T) {
	ctx := context.Background()
	src := openTemp(t)
	const good = "5d1e0c3b2a4f46789abcdef012345678"
	createFixture(t, src, good, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	rec, err := src.GetSession(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, id, why string }{
		{"empty", "", "it is empty"},
		{"OSC 8 link", "\x1b]8;;http://evil.example/\x07x\x1b]8;;\x07", "characters"},
		{"clear screen", "\x1b[2J\x1b[H0123456789abcdef012345678", "character 1 is '\\x1b'"},
		{"5,000 characters", strings.Repeat("a", 5000), "it has 5000 characters"},
		{"path", "../../etc/passwd", "it has 16 characters"},
		{"path of 32", "../../../../../../../../etc/pass", "character 1 is '.'"},
		{"a short id", good[:7], "it has 7 characters"},
		{"upper case", strings.ToUpper(good), "character 2 is 'D'"},
		{"a UUID with dashes", "0b4f6c2e-9a51-4d0c-b8e7-3f1a2c9d8e70", "it has 36 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := openTemp(t)
			r := *rec
			r.Session.ID = tt.id
			err := dst.ImportRecord(ctx, &r)
			if !errors.Is(err, ErrBadID) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("import of id %q: %v, want ErrBadID", tt.id, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.why) || strings.ContainsAny(msg, "\x1b\x07") || len(msg) > 300 {
				t.Errorf("message %q: want the reason %q, no control character, at most 300 bytes", msg, tt.why)
			}
			if list, _ := dst.ListSessions(ctx, Filter{}); len(list) != 0 {
				t.Errorf("a refused import stored %d sessions", len(list))
			}
		})
	}
	if err := CheckSessionID(good); err != nil {
		t.Errorf("a well-formed id is refused: %v", err)
	}
}

// An import cannot take over a stored session's id: an id that begins a
// stored one (which a database may hold from before ids were checked) would
// make that prefix open the import instead.
func TestImportCannotTakeOverAnID(t *testing.T) {
	ctx := context.Background()
	const long = "0123456789abcdef0123456789abcdef01234567" // stored before imports were checked
	dst := openTemp(t)
	createFixture(t, dst, long, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	src := openTemp(t)
	createFixture(t, src, long[:SessionIDLength], time.Date(2025, 1, 3, 3, 4, 5, 0, time.UTC))
	rec, err := src.GetSession(ctx, long[:SessionIDLength])
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.ImportRecord(ctx, rec); !errors.Is(err, ErrTakesOver) {
		t.Fatalf("import of %s next to %s: %v, want ErrTakesOver", rec.Session.ID, long, err)
	}
	got, err := dst.GetSession(ctx, long[:SessionIDLength])
	if err != nil || got.Session.ID != long {
		t.Errorf("the prefix opens %v (%v), want the stored session %s", got, err, long)
	}
}

// Any id is accepted exactly when it is 32 lowercase hexadecimal digits, and
// the refusal of any other prints none of its control characters and stays
// short.
func FuzzCheckSessionID(f *testing.F) {
	for _, s := range []string{"0b4f6c2e9a514d0cb8e73f1a2c9d8e70", "", "\x1b]8;;x\x07", "../../etc/passwd", strings.Repeat("a", 5000), "0B4F6C2E9A514D0CB8E73F1A2C9D8E70", "\xff\xfe"} {
		f.Add(s)
	}
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	f.Fuzz(func(t *testing.T, id string) {
		err := CheckSessionID(id)
		if (err == nil) != hex32.MatchString(id) {
			t.Fatalf("CheckSessionID(%q) = %v", id, err)
		}
		if err == nil {
			return
		}
		msg := err.Error()
		if strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }) || len(msg) > 400 {
			t.Fatalf("refusal of %q prints %q", id, msg)
		}
	})
}
