package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fixture"
)

// The faults helper: the test binary re-run with faultsHelperEnv set reads a
// database the way `prefrag sessions` does, from a process that cannot write
// it (another user, or a read-only mount).
const faultsHelperEnv = "PREFRAG_STORE_FAULTS_HELPER"

const (
	answeredID = "0b4f6c2e9a514d0cb8e73f1a2c9d8e70"
	orphanID   = "77aa01c3-orphan"
)

func TestFaultsHelper(t *testing.T) {
	mode := os.Getenv(faultsHelperEnv)
	if mode == "" {
		t.Skip("helper process for the fault tests")
	}
	var err error
	switch mode {
	case "read":
		err = helperRead(os.Getenv("HELPER_DB"), os.Getenv("HELPER_WANT"))
	case "stalewal":
		err = helperStaleWAL(os.Getenv("HELPER_DB"))
	case "create":
		err = helperCreate(os.Getenv("HELPER_DB"))
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

// helperRead opens a database it cannot write and checks that every read
// works, that the orphaned running session reads as interrupted, and that a
// write is refused with ErrReadOnly.
func helperRead(path, want string) error {
	ctx := context.Background()
	s, err := Open(context.Background(), path)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer s.Close()
	if !strings.Contains(s.ReadOnly(), want) {
		return fmt.Errorf("ReadOnly() = %q, want it to mention %q", s.ReadOnly(), want)
	}
	list, err := s.ListSessions(ctx, Filter{})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	if len(list) != 2 {
		return fmt.Errorf("list: %d sessions, want 2", len(list))
	}
	if got, err := s.ListSessions(ctx, Filter{Status: StatusInterrupted}); err != nil || len(got) != 1 || got[0].ID != orphanID {
		return fmt.Errorf("list --status interrupted: %v, %v", got, err)
	}
	rec, err := s.GetSession(ctx, answeredID[:8])
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	if n := len(fixture.Events(answeredID)); len(rec.Events) != n {
		return fmt.Errorf("get: %d events, want %d", len(rec.Events), n)
	}
	orphan, err := s.GetSession(ctx, orphanID)
	if err != nil || orphan.Session.Status != StatusInterrupted {
		return fmt.Errorf("the orphaned session reads as %v, %v; want interrupted", orphan, err)
	}
	if found, err := s.SearchSessions(ctx, "plant ecologist"); err != nil || len(found) != 2 {
		return fmt.Errorf("search: %d, %v", len(found), err)
	}
	err = s.CreateSession(ctx, Session{ID: "new", Question: "q"})
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "PREFRAG_HOME") {
		return fmt.Errorf("a write to a read-only database gave %v, want ErrReadOnly with what to do", err)
	}
	return nil
}

// helperStaleWAL commits a change and exits without closing: the change
// stays in the -wal file (not checkpointed), as after a killed prefrag.
func helperStaleWAL(path string) error {
	s, err := Open(context.Background(), path)
	if err != nil {
		return err
	}
	_, err = s.w.Exec("UPDATE sessions SET answer = 'only in the WAL' WHERE id = ?", answeredID)
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}

// seedHome makes a world-readable home folder holding a database with an
// answered session and a running one whose owner is gone.
func seedHome(t *testing.T) (dir, path string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "prefrag-store-faults-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Chmod(dir, 0o755)
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "prefrag.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	createFixture(t, s, answeredID, fixture.Start)
	if err := s.CreateSession(ctx, Session{ID: orphanID, Question: fixture.Question, Started: fixture.Start.Add(1)}); err != nil {
		t.Fatal(err)
	}
	for _, ev := range fixture.Events(orphanID)[:5] {
		if err := s.AppendEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	// pid 0 is nobody's: the owner is gone.
	if _, err := s.w.Exec("UPDATE sessions SET owner_pid = 0 WHERE id = ?", orphanID); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// exeForOthers copies the test binary where another user can run it.
func exeForOthers(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "prefrag-store-exe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "store.test")
	in, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return exe
}

// folderState is what a read must leave untouched: the names in the folder
// and the bytes of the database.
func folderState(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	b, err := os.ReadFile(filepath.Join(dir, "prefrag.db"))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%v %x", names, sha256.Sum256(b))
}

func chownAll(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

const nobody = 65534

// TestReadOnlyHome reads a session database from a process that may not
// write it. Permission bits do not stop root, so as root the reader runs as
// an unprivileged user (setpriv) or on a read-only bind mount (unshare).
// Before the fix every case failed to open ("attempt to write a readonly
// database", or on a read-only mount "unable to open database file: no such
// file or directory").
func TestReadOnlyHome(t *testing.T) {
	root := os.Geteuid() == 0
	_, errSetpriv := exec.LookPath("setpriv")
	asNobody := func(t *testing.T) []string {
		if !root {
			return nil
		}
		if errSetpriv != nil {
			t.Skip("running as root without setpriv: cannot read as an unprivileged user")
		}
		return []string{"setpriv", fmt.Sprintf("--reuid=%d", nobody), fmt.Sprintf("--regid=%d", nobody), "--clear-groups"}
	}
	lockedByOwner := func(t *testing.T, dir string) {
		if root {
			chownAll(t, dir, nobody)
		}
		if err := os.Chmod(filepath.Join(dir, "prefrag.db"), 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		prepare func(t *testing.T, dir string) // after seeding
		wrap    func(t *testing.T, dir string) []string
		want    string // in ReadOnly()
	}{
		{
			name:    "folder and file without write permission",
			prepare: lockedByOwner,
			wrap:    func(t *testing.T, _ string) []string { return asNobody(t) },
			want:    "no write permission",
		},
		{
			name: "another user's home",
			prepare: func(t *testing.T, dir string) {
				if !root {
					t.Skip("needs root to make a home another user cannot write")
				}
			},
			wrap: func(t *testing.T, _ string) []string { return asNobody(t) },
			want: "no write permission on the file",
		},
		{
			name: "read-only file system",
			prepare: func(t *testing.T, dir string) {
				if !root {
					t.Skip("needs root for a read-only bind mount")
				}
				if out, err := exec.Command("unshare", "-m", "sh", "-c", `mount --bind -o ro "$1" "$1"`, "sh", dir).CombinedOutput(); err != nil {
					t.Skipf("no read-only bind mount here: %v %s", err, out)
				}
			},
			wrap: func(t *testing.T, dir string) []string {
				return []string{"unshare", "-m", "sh", "-c", `mount --bind -o ro "$1" "$1" && shift && exec "$@"`, "sh", dir}
			},
			want: "read-only file system",
		},
		{
			name: "changes left in the write-ahead log and no index",
			prepare: func(t *testing.T, dir string) {
				path := filepath.Join(dir, "prefrag.db")
				cmd := exec.Command(os.Args[0], "-test.run=^TestFaultsHelper$", "-test.count=1")
				cmd.Env = append(os.Environ(), faultsHelperEnv+"=stalewal", "HELPER_DB="+path)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("stale WAL helper: %v %s", err, out)
				}
				if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
					t.Fatalf("no -wal left: %v", err)
				}
				if err := os.Remove(path + "-shm"); err != nil {
					t.Fatal(err)
				}
				lockedByOwner(t, dir)
			},
			wrap: func(t *testing.T, _ string) []string { return asNobody(t) },
			want: "prefrag.db-wal",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, path := seedHome(t)
			tc.prepare(t, dir)
			argv := append(tc.wrap(t, dir), exeForOthers(t), "-test.run=^TestFaultsHelper$", "-test.count=1")
			before := folderState(t, dir)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = append(os.Environ(), faultsHelperEnv+"=read", "HELPER_DB="+path, "HELPER_WANT="+tc.want)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("reading a read-only database: %v\n%s", err, out.String())
			}
			if after := folderState(t, dir); after != before {
				t.Errorf("a read changed the folder or the database:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestCannotCreateInReadOnlyFolder: a missing database in a folder this
// process cannot write gives one sentence that says what to do (before the
// fix: "prepare session database …: unable to open database file").
func TestCannotCreateInReadOnlyFolder(t *testing.T) {
	dir, err := os.MkdirTemp("", "prefrag-store-faults-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Chmod(dir, 0o755)
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "prefrag.db")
	if os.Geteuid() != 0 {
		if err := helperCreate(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("running as root without setpriv: cannot act as an unprivileged user")
	}
	cmd := exec.Command("setpriv", fmt.Sprintf("--reuid=%d", nobody), fmt.Sprintf("--regid=%d", nobody), "--clear-groups",
		exeForOthers(t), "-test.run=^TestFaultsHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), faultsHelperEnv+"=create", "HELPER_DB="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

func helperCreate(path string) error {
	s, err := Open(context.Background(), path)
	if err == nil {
		s.Close()
		return fmt.Errorf("Open created a database in a read-only folder")
	}
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "PREFRAG_HOME") {
		return fmt.Errorf("Open in a read-only folder: %v; want ErrReadOnly with what to do", err)
	}
	return nil
}
