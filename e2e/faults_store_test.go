package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// The session database under faults: a home prefrag cannot write, a
// damaged file, and stored event rows that do not decode.

const (
	storeCaseID = "0b4f6c2e9a514d0cb8e73f1a2c9d8e70"
	nobodyID    = 65534
)

// storeHome is a prefrag home in a folder every user can reach (t.TempDir's
// parents are private to the test's user), seeded with sessions imported
// from the export package's case-study file under the given ids.
func storeHome(t *testing.T, ids ...string) *world {
	t.Helper()
	home, err := os.MkdirTemp("", "prefrag-e2e-store-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(home)
	})
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, home: home}
	src, err := os.ReadFile(filepath.Join("..", "store", "export", "testdata", "casestudy.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		f := filepath.Join(home, fmt.Sprintf("s%d.json", i))
		if err := os.WriteFile(f, []byte(strings.ReplaceAll(string(src), storeCaseID, id)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := w.run("sessions", "import", f); code != 0 {
			t.Fatalf("import: %s", errOut)
		}
		os.Remove(f)
	}
	return w
}

func (w *world) dbPath() string { return filepath.Join(w.home, "data", "prefrag.db") }

// sqlExec changes the database behind prefrag's back (the test's fault).
func (w *world) sqlExec(query string, args ...any) {
	w.t.Helper()
	db, err := sql.Open("sqlite3", w.dbPath())
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		w.t.Fatal(err)
	}
}

// runWith runs the binary behind a wrapper command (setpriv, unshare).
func (w *world) runWith(wrap []string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	argv := append(append(append([]string{}, wrap...), binary), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = w.env()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code <= 0 {
		w.t.Fatalf("%v: %v", argv, err)
	}
	return o.String(), e.String(), code
}

// dataState is what a read must leave as it was: the names in the data
// folder and the bytes of the database.
func dataState(t *testing.T, dir string) string {
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

func noPanic(t *testing.T, what, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("%s panicked:\n%s", what, stderr)
	}
}

// TestReadOnlyHomeSessions: list, show, search and export work when the home
// cannot be written, and nothing is written (the running session whose
// process is gone reads as interrupted without being marked so). Before the
// fix they failed: "… cannot be read (is it a prefrag database?): read
// schema version: attempt to write a readonly database", and on a read-only
// mount "…: unable to open database file: no such file or directory".
func TestReadOnlyHomeSessions(t *testing.T) {
	root := os.Geteuid() == 0
	_, errSetpriv := exec.LookPath("setpriv")
	// The other user must reach the binary.
	if err := os.Chmod(filepath.Dir(binary), 0o755); err != nil {
		t.Fatal(err)
	}
	asNobody := func(t *testing.T) []string {
		if !root {
			return nil
		}
		if errSetpriv != nil {
			t.Skip("running as root without setpriv: cannot act as an unprivileged user")
		}
		return []string{"setpriv", fmt.Sprintf("--reuid=%d", nobodyID), fmt.Sprintf("--regid=%d", nobodyID), "--clear-groups"}
	}
	// lock makes the data folder and the database read-only for their owner
	// (nobody, when the test runs as root).
	lock := func(t *testing.T, data string) {
		if root {
			filepath.WalkDir(data, func(p string, _ os.DirEntry, err error) error {
				if err == nil {
					err = os.Lchown(p, nobodyID, nobodyID)
				}
				return err
			})
		}
		filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return os.Chmod(p, 0o555)
			}
			return os.Chmod(p, 0o444)
		})
	}
	cases := []struct {
		name    string
		prepare func(t *testing.T, data string)
		wrap    func(t *testing.T, data string) []string
		want    string // in the read-only note
	}{
		{"folder and file without write permission", lock,
			func(t *testing.T, _ string) []string { return asNobody(t) }, "no write permission"},
		{"only the database, in a read-only home", func(t *testing.T, data string) {
			os.RemoveAll(filepath.Join(data, "corpora"))
			os.Remove(filepath.Join(data, "prefrag.log"))
			lock(t, data)
		}, func(t *testing.T, _ string) []string { return asNobody(t) }, "no write permission"},
		{"another user's home", func(t *testing.T, _ string) {
			if !root {
				t.Skip("needs root to make a home another user cannot write")
			}
		}, func(t *testing.T, _ string) []string { return asNobody(t) }, "no write permission on the file"},
		{"read-only file system", func(t *testing.T, data string) {
			if !root {
				t.Skip("needs root for a read-only bind mount")
			}
			if out, err := exec.Command("unshare", "-m", "sh", "-c", `mount --bind -o ro "$1" "$1"`, "sh", data).CombinedOutput(); err != nil {
				t.Skipf("no read-only bind mount here: %v %s", err, out)
			}
		}, func(t *testing.T, data string) []string {
			return []string{"unshare", "-m", "sh", "-c", `mount --bind -o ro "$1" "$1" && shift && exec "$@"`, "sh", data}
		}, "read-only file system"},
	}
	const orphan = "77aa01c35b1e4c1e9d7a0f00c0ffee00"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := storeHome(t, storeCaseID, orphan)
			src, err := os.ReadFile(filepath.Join("..", "store", "export", "testdata", "casestudy.json"))
			if err != nil {
				t.Fatal(err)
			}
			importFile := filepath.Join(w.home, "new.json")
			if err := os.WriteFile(importFile, bytes.ReplaceAll(src, []byte(storeCaseID), []byte("3c4d5e6f00000000000000000000000e")), 0o644); err != nil {
				t.Fatal(err)
			}
			host, _ := os.Hostname()
			// A running session whose process is gone (pid 0 is nobody's).
			w.sqlExec(`UPDATE sessions SET status = 'running', finished_ns = NULL, owner_host = ?, owner_pid = 0 WHERE id = ?`, host, orphan)
			data := filepath.Join(w.home, "data")
			tc.prepare(t, data)
			wrap := tc.wrap(t, data)
			before := dataState(t, data)

			out, errOut, code := w.runWith(wrap, "sessions", "list", "--json")
			if code != 0 || !strings.Contains(errOut, "read-only here") || !strings.Contains(errOut, tc.want) {
				t.Fatalf("sessions list: exit %d\n%s", code, errOut)
			}
			t.Logf("sessions list (exit %d): %s", code, strings.TrimSpace(errOut))
			status := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var s struct{ ID, Status string }
				if err := json.Unmarshal([]byte(line), &s); err != nil {
					t.Fatalf("list --json line %q: %v", line, err)
				}
				status[s.ID] = s.Status
			}
			if status[storeCaseID] != "answered" || status[orphan] != "interrupted" {
				t.Errorf("statuses %v, want answered and interrupted", status)
			}
			for _, args := range [][]string{
				{"sessions", "list"},
				{"sessions", "show", storeCaseID[:8]},
				{"sessions", "show", orphan, "--json"},
				{"sessions", "search", "plant", "ecologist"},
				{"sessions", "export", "--all", "--format", "json"},
				{"sessions", "export", storeCaseID, "--format", "md"},
			} {
				out, errOut, code := w.runWith(wrap, args...)
				if code != 0 || !strings.Contains(out, "Danish plant ecologist") {
					t.Errorf("%v: exit %d\nstdout %.300s\nstderr %s", args, code, out, errOut)
				}
			}
			// A write says why it cannot be done and what to do.
			_, errOut, code = w.runWith(wrap, "sessions", "import", importFile)
			if code != 1 || !strings.Contains(errOut, "read-only") || !strings.Contains(errOut, "PREFRAG_HOME") || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
				t.Errorf("import into a read-only home: exit %d: %s", code, errOut)
			}
			t.Logf("sessions import (exit %d): %s", code, strings.TrimSpace(errOut))
			if after := dataState(t, data); after != before {
				t.Errorf("reading changed the home:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestDamagedDatabaseSessions: a truncated or foreign prefrag.db makes every
// sessions command end with exit 1 and one sentence naming the file and the
// next step; none panics. Before the fix the sentence was SQLite's
// "database disk image is malformed" with nothing to do.
func TestDamagedDatabaseSessions(t *testing.T) {
	cases := []struct {
		name   string
		damage func(b []byte) []byte
	}{
		{"truncated to half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"header cut short", func(b []byte) []byte { return b[:60] }},
		{"overwritten with text", func(b []byte) []byte { return bytes.Repeat([]byte("not a database "), len(b)/15) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := storeHome(t, storeCaseID)
			path := w.dbPath()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"sessions", "list"},
				{"sessions", "show", storeCaseID},
				{"sessions", "search", "ecologist"},
				{"sessions", "export", "--all", "--format", "jsonl"},
			} {
				_, errOut, code := w.run(args...)
				noPanic(t, strings.Join(args, " "), errOut)
				msg := strings.TrimSpace(errOut)
				if code != 1 || strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, "is damaged") ||
					!strings.Contains(msg, "move it aside") || !strings.Contains(msg, "backup") {
					t.Errorf("%v: exit %d, stderr %q", args, code, msg)
				}
			}
			_, errOut, _ := w.run("sessions", "list")
			t.Logf("sessions list: %s", strings.TrimSpace(errOut))
			// The advice works: moved aside, prefrag starts a new database.
			if err := os.Rename(path, path+".damaged"); err != nil {
				t.Fatal(err)
			}
			if out, errOut, code := w.run("sessions", "list"); code != 0 || !strings.Contains(out, "no sessions") {
				t.Errorf("after moving it aside: exit %d %s %s", code, out, errOut)
			}
		})
	}
}

// TestExportSkipsBadEventRow: one undecodable event row costs its own
// session only. `sessions export --all` writes the others, names the skipped
// one on stderr and exits 1 (incomplete); `sessions show` prints the
// readable events and names the bad one. Before the fix both failed whole.
func TestExportSkipsBadEventRow(t *testing.T) {
	ids := []string{storeCaseID, "1d2e3f4000004000800000000000bad0", "2a3b4c5d000040008000000000000003"}
	w := storeHome(t, ids...)
	bad := ids[1]
	w.sqlExec(`UPDATE events SET json = '{"type":"thought","ses' WHERE session_id = ? AND seq = 4`, bad)

	for _, format := range []string{"json", "jsonl", "md", "pairs"} {
		out := filepath.Join(w.home, "export."+format)
		_, errOut, code := w.run("sessions", "export", "--all", "--format", format, "-o", out)
		noPanic(t, "export", errOut)
		if code != 1 || !strings.Contains(errOut, "skipped session "+bad) || !strings.Contains(errOut, "stored event 4") ||
			!strings.Contains(errOut, "export incomplete: wrote 2 of 3 sessions") {
			t.Errorf("export --all --format %s: exit %d\n%s", format, code, errOut)
		}
		if format == "json" {
			t.Logf("export --all (exit %d):\n%s", code, strings.TrimSpace(errOut))
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: nothing written: %v", format, err)
		}
		if bytes.Contains(b, []byte(bad)) || (format != "pairs" && (!bytes.Contains(b, []byte(ids[0])) || !bytes.Contains(b, []byte(ids[2])))) {
			t.Errorf("%s export holds the wrong sessions", format)
		}
	}
	// What was exported imports whole into a fresh home.
	fresh := storeHome(t)
	if out, errOut, code := fresh.run("sessions", "import", filepath.Join(w.home, "export.json")); code != 0 || !strings.Contains(out, "imported 2") {
		t.Errorf("import of the incomplete export: exit %d %s %s", code, out, errOut)
	}
	// Naming only the bad session: nothing to write.
	if _, errOut, code := w.run("sessions", "export", bad, "--format", "json"); code != 1 || !strings.Contains(errOut, "nothing was exported") {
		t.Errorf("export of the bad session alone: exit %d %s", code, errOut)
	}
	// show prints the readable events, then names the bad one.
	all, _, code := w.run("sessions", "show", ids[0], "--json")
	if code != 0 {
		t.Fatal("show of a sound session failed")
	}
	out, errOut, code := w.run("sessions", "show", bad, "--json")
	noPanic(t, "show", errOut)
	if code != 1 || strings.Count(out, "\n") != strings.Count(all, "\n")-1 || !strings.Contains(errOut, "stored event 4 cannot be read") {
		t.Errorf("show --json of the bad session: exit %d, %d lines (want %d)\n%s", code, strings.Count(out, "\n"), strings.Count(all, "\n")-1, errOut)
	}
	t.Logf("sessions show (exit %d): %s", code, strings.TrimSpace(errOut))
	if out, _, code := w.run("sessions", "list"); code != 0 || strings.Count(out, "\n") != 4 {
		t.Errorf("list: exit %d\n%s", code, out)
	}
}

// TestAskInReadOnlyHome: a question asked where the session database cannot
// be written ends with exit 1 and the sentence that says what to do, and
// the database is left as it was.
func TestAskInReadOnlyHome(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	if _, errOut, code := w.run(w.askArgs("--json", caseQuestion)...); code != 0 {
		t.Fatalf("first ask: exit %d: %s", code, errOut)
	}
	data := filepath.Join(w.home, "data")
	var wrap []string
	if os.Geteuid() == 0 {
		if out, err := exec.Command("unshare", "-m", "sh", "-c", `mount --bind -o ro "$1" "$1"`, "sh", data).CombinedOutput(); err != nil {
			t.Skipf("root without a read-only bind mount: %v %s", err, out)
		}
		wrap = []string{"unshare", "-m", "sh", "-c", `mount --bind -o ro "$1" "$1" && shift && exec "$@"`, "sh", data}
	} else {
		os.Chmod(filepath.Join(data, "prefrag.db"), 0o444)
		os.Chmod(data, 0o555)
		t.Cleanup(func() { os.Chmod(data, 0o755) })
	}
	before := dataState(t, data)
	_, errOut, code := w.runWith(wrap, w.askArgs(caseQuestion)...)
	noPanic(t, "ask", errOut)
	if code != 1 || !strings.Contains(errOut, "read-only") || !strings.Contains(errOut, "PREFRAG_HOME") {
		t.Errorf("ask in a read-only home: exit %d\n%s", code, errOut)
	}
	t.Logf("ask (exit %d): %s", code, strings.TrimSpace(errOut))
	if after := dataState(t, data); after != before {
		t.Errorf("ask changed a read-only home:\nbefore %s\nafter  %s", before, after)
	}
}
