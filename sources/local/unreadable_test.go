package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// unprivileged runs Index as a user that file permissions apply to: this
// process when it is not root, else a copy of the test binary started as
// nobody (uid 65534) with setpriv, whose report comes back as JSON.
type unprivileged struct {
	base   string // a folder everything of the test lives under
	binary string // the test binary copy, when root
}

const nobody = 65534

func newUnprivileged(t *testing.T) *unprivileged {
	t.Helper()
	base, err := os.MkdirTemp("", "prefrag-unreadable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Permissions removed by a test would stop a non-root RemoveAll.
		_ = filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		_ = os.RemoveAll(base)
	})
	u := &unprivileged{base: base}
	if os.Geteuid() != 0 {
		return u
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("running as root and setpriv (util-linux) is missing: cannot run the ingest as a user that permissions apply to")
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	u.binary = filepath.Join(base, "local.test")
	copyFile(t, os.Args[0], u.binary)
	return u
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// dir makes a folder under base that the unprivileged user owns.
func (u *unprivileged) dir(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(u.base, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// own hands everything under base to the unprivileged user.
func (u *unprivileged) own(t *testing.T) {
	t.Helper()
	if u.binary == "" {
		return
	}
	err := filepath.WalkDir(u.base, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		t.Fatal(err)
	}
}

type helperIndexResult struct {
	Report Report `json:"report"`
	Err    string `json:"err"`
}

// index runs Index as the unprivileged user.
func (u *unprivileged) index(t *testing.T, dir, name string, paths ...string) (Report, string) {
	t.Helper()
	if u.binary == "" {
		rep, err := Index(context.Background(), dir, name, paths, IndexOptions{})
		if err != nil {
			return rep, err.Error()
		}
		return rep, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		u.binary, "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "PREFRAG_HELPER=index", "PREFRAG_DIR="+dir, "PREFRAG_NAME="+name,
		"PREFRAG_PATHS="+strings.Join(paths, "\n"), "HOME="+u.base)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper index: %v\n%s\n%s", err, out.String(), errOut.String())
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(out.String()), "ready ")
	if !ok {
		t.Fatalf("helper index said %q (%s)", out.String(), errOut.String())
	}
	var res helperIndexResult
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("helper index: %v: %q", err, line)
	}
	return res.Report, res.Err
}

// helperIndex is the "index" mode of TestHelperProcess.
func helperIndex(dir, name string) {
	paths := strings.Split(os.Getenv("PREFRAG_PATHS"), "\n")
	rep, err := Index(context.Background(), dir, name, paths, IndexOptions{})
	res := helperIndexResult{Report: rep}
	if err != nil {
		res.Err = err.Error()
	}
	b, _ := json.Marshal(res)
	fmt.Printf("ready %s\n", b)
}

// An ingest that cannot read a folder or a file keeps every passage
// indexed from it, lists it as a failure, and says the run is incomplete;
// a file really deleted in the same run is still removed.
func TestUnreadableFoldersKeepTheirDocuments(t *testing.T) {
	cases := []struct {
		name string
		// spoil makes part of src unreadable after the first ingest.
		spoil       func(t *testing.T, src string)
		wantRemoved int
		wantKept    int
		wantFailed  string // a path (relative to src) listed as failed
	}{
		{"sub-folder mode 000", func(t *testing.T, src string) { chmod(t, filepath.Join(src, "sub"), 0) }, 1, 2, "sub"},
		{"the indexed folder itself mode 000", func(t *testing.T, src string) { chmod(t, src, 0) }, 0, 4, "."},
		{"sub-folder listable, not searchable", func(t *testing.T, src string) { chmod(t, filepath.Join(src, "sub"), 0o644) }, 1, 2, "sub/b.txt"},
		{"sub-folder searchable, not listable", func(t *testing.T, src string) { chmod(t, filepath.Join(src, "sub"), 0o311) }, 1, 2, "sub"},
		{"changed file mode 000", func(t *testing.T, src string) {
			p := filepath.Join(src, "sub", "b.txt")
			if err := os.WriteFile(p, []byte("Rewritten text that nobody may read, longer than before."), 0o644); err != nil {
				t.Fatal(err)
			}
			chmod(t, p, 0)
		}, 1, 1, "sub/b.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnprivileged(t)
			src, dir := u.dir(t, "src"), u.dir(t, "corpora")
			writeFiles(t, src, map[string]string{
				"a.txt":          "The lighthouse keeper lit the lamp at dusk.",
				"gone.txt":       "This file is deleted before the second run.",
				"sub/b.txt":      "Saltmarsh sparrows nest in the tidal grass.",
				"sub/deep/c.txt": "The cartographer drew the estuary in 1791.",
			})
			u.own(t)
			rep, errText := u.index(t, dir, "u", src)
			if errText != "" || rep.Indexed != 4 || rep.Incomplete {
				t.Fatalf("first run: %s %+v", errText, rep)
			}
			if err := os.Remove(filepath.Join(src, "gone.txt")); err != nil {
				t.Fatal(err)
			}
			tc.spoil(t, src)

			rep, errText = u.index(t, dir, "u", src)
			if errText != "" {
				t.Fatalf("second run failed: %s", errText)
			}
			if rep.Removed != tc.wantRemoved || rep.Kept != tc.wantKept || !rep.Incomplete {
				t.Errorf("second run: removed %d kept %d incomplete %v, want %d, %d, true\n%+v",
					rep.Removed, rep.Kept, rep.Incomplete, tc.wantRemoved, tc.wantKept, rep)
			}
			want := filepath.Join(src, tc.wantFailed)
			listed := false
			for _, f := range rep.Failed {
				listed = listed || (f.Path == want && strings.Contains(f.Reason, "permission denied") && strings.Contains(f.Reason, "kept"))
			}
			if !listed {
				t.Errorf("%s is not listed as unreadable: %+v", want, rep.Failed)
			}
			c := mustOpen(t, dir, "u")
			st, err := c.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(4 - tc.wantRemoved); st.Documents != want || st.Passages != want {
				t.Errorf("corpus holds %d documents, %d passages; want %d", st.Documents, st.Passages, want)
			}
			for _, q := range []string{"saltmarsh sparrows", "cartographer estuary", "lighthouse keeper"} {
				docs, err := c.Search(context.Background(), q, 3)
				if err != nil || len(docs) == 0 {
					t.Errorf("%q no longer found: %v %v", q, docs, err)
				}
			}
			c.Close()
			checkCounters(t, dir, "u")
		})
	}
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// A deleted file is removed once: later runs do not count it again (its
// name stays in the index's term dictionary until a merge).
func TestRemovedFileCountedOnce(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "alpha one", "b.txt": "beta two"})
	mustIndex(t, dir, "r", src)
	if err := os.Remove(filepath.Join(src, "b.txt")); err != nil {
		t.Fatal(err)
	}
	for run, want := range []int{1, 0, 0} {
		if rep := mustIndex(t, dir, "r", src); rep.Removed != want || rep.Kept != 0 {
			t.Errorf("run %d after the deletion: removed %d kept %d, want %d, 0", run+1, rep.Removed, rep.Kept, want)
		}
	}
}
