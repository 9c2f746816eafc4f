package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

// Ways a corpus gets damaged on disk. Each takes the corpus folder.
var damages = []struct {
	name   string
	damage func(t *testing.T, path string)
}{
	{"root.bolt page ids flipped", func(t *testing.T, path string) {
		// Every page after the two meta pages claims another id: the bolt
		// library asserts (panics) on the first one it reads.
		flipRootBolt(t, path, 2, 8)
	}},
	{"root.bolt meta pages flipped", func(t *testing.T, path string) { flipRootBolt(t, path, 0, 64) }},
	{"root.bolt truncated", func(t *testing.T, path string) {
		if err := os.Truncate(filepath.Join(path, "store", "root.bolt"), 5000); err != nil {
			t.Fatal(err)
		}
	}},
	{"segment file deleted", func(t *testing.T, path string) {
		zaps, _ := filepath.Glob(filepath.Join(path, "store", "*.zap"))
		if len(zaps) == 0 {
			t.Fatal("no .zap segment to delete")
		}
		for _, z := range zaps {
			if err := os.Remove(z); err != nil {
				t.Fatal(err)
			}
		}
	}},
	{"index_meta.json garbage", func(t *testing.T, path string) {
		if err := os.WriteFile(filepath.Join(path, "index_meta.json"), []byte("{\x00\xff not json"), 0o644); err != nil {
			t.Fatal(err)
		}
	}},
}

// flipRootBolt inverts the first n bytes of every 4 KiB page of root.bolt
// from page first on.
func flipRootBolt(t *testing.T, path string, first, n int) {
	t.Helper()
	p := filepath.Join(path, "store", "root.bolt")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	for pg := first; (pg+1)*page <= len(b); pg++ {
		if first == 0 && pg > 1 {
			break // the meta pages only
		}
		for i := pg * page; i < pg*page+n; i++ {
			b[i] ^= 0xff
		}
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A damaged corpus never panics: opening, searching, listing and indexing
// it say it is damaged, name it and say what to do; the other corpus keeps
// working and the damaged one can be deleted.
func TestDamagedCorpusIsNamedNeverPanics(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			src, dir := t.TempDir(), t.TempDir()
			writeFiles(t, src, map[string]string{
				"a.txt": "The lighthouse keeper lit the lamp at dusk.",
				"b.txt": "Saltmarsh sparrows nest in the tidal grass.",
			})
			mustIndex(t, dir, "good", src)
			mustIndex(t, dir, "bad", src)
			d.damage(t, filepath.Join(dir, "bad"))

			named := func(what, msg string) {
				t.Helper()
				if !strings.Contains(msg, `corpus "bad" is damaged`) || !strings.Contains(msg, "prefrag corpora rm bad") || strings.Contains(msg, "\n") {
					t.Errorf("%s: message %q does not name the corpus and the next step on one line", what, msg)
				}
			}
			isDamaged := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("%s: %v, want a damaged-corpus error", what, err)
				}
				named(what, err.Error())
			}
			_, err := Open(dir, "bad")
			isDamaged("Open", err)
			_, err = Index(context.Background(), dir, "bad", []string{src}, IndexOptions{})
			isDamaged("Index", err)

			_, err = ReadStats(dir, "bad")
			isDamaged("ReadStats", err)
			if st, err := ReadStats(dir, "good"); err != nil || st.Documents != 2 {
				t.Fatalf("the good corpus's statistics: %+v %v", st, err)
			}

			good := mustOpen(t, dir, "good")
			if docs, err := good.Search(context.Background(), "lighthouse keeper", 3); err != nil || len(docs) != 1 {
				t.Errorf("the good corpus: %v %v", docs, err)
			}
			if err := Remove(dir, "bad"); err != nil {
				t.Fatalf("Remove: %v", err)
			}
			if Exists(dir, "bad") || !Exists(dir, "good") {
				t.Errorf("after Remove: bad %v, good %v", Exists(dir, "bad"), Exists(dir, "good"))
			}
			// Indexed again from scratch, it works.
			if rep := mustIndex(t, dir, "bad", src); rep.Indexed != 2 {
				t.Errorf("re-index: %+v", rep)
			}
		})
	}
}

// To the engine, a damaged corpus is an unavailable source.
func TestDamagedIsUnavailable(t *testing.T) {
	err := error(&DamagedError{Name: "x", Reason: "r"})
	if !errors.Is(err, sources.ErrUnavailable) || !errors.Is(err, ErrDamaged) {
		t.Errorf("%v matches neither", err)
	}
}

// A panic of the index library inside a search becomes a damaged-corpus
// error for that corpus.
func TestRecoverDamaged(t *testing.T) {
	f := func() (err error) {
		defer recoverDamaged("c", &err)
		var m map[int]int
		//lint:ignore SA5000 the panic is what is tested
		m[1] = 1
		return nil
	}
	if err := f(); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Errorf("got %v", err)
	}
}

// mountTmpfs mounts a tmpfs of size bytes on a new temporary folder, or
// skips the test when that is not possible (not root, no mount).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is simulated with a small tmpfs, which only root can mount")
	}
	if _, err := exec.LookPath("mount"); err != nil {
		t.Skip("no mount command to make a small tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s); the full-disk test needs it", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// A disk that fills up while indexing stops the ingest with a disk-full
// error, no panic; the passages written before are kept and searchable, in
// that corpus and in the one beside it.
func TestDiskFullDuringIndex(t *testing.T) {
	disk := mountTmpfs(t, "2m")
	dir := filepath.Join(disk, "corpora")
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"a.txt": "The lighthouse keeper lit the lamp at dusk.",
		"b.txt": "Saltmarsh sparrows nest in the tidal grass.",
	})
	mustIndex(t, dir, "first", src)
	mustIndex(t, dir, "other", src)

	big := t.TempDir()
	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, "w%d x%d y%d z%d. ", i, i*7, i*13, i*31)
		if i%40 == 39 {
			sb.WriteString("\n\n")
		}
	}
	for f := 0; f < 6; f++ {
		writeFiles(t, big, map[string]string{fmt.Sprintf("big%d.txt", f): fmt.Sprintf("file %d ", f) + sb.String()})
	}
	_, err := Index(context.Background(), dir, "first", []string{src, big}, IndexOptions{})
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("indexing onto a full disk: %v, want a disk-full error", err)
	}
	if !strings.Contains(err.Error(), `corpus "first"`) || !strings.Contains(err.Error(), "free some space") {
		t.Errorf("message: %q", err)
	}
	for _, name := range []string{"first", "other"} {
		c := mustOpen(t, dir, name)
		st, err := c.Stats()
		if err != nil || st.Documents < 2 {
			t.Errorf("%s after the disk filled: %+v %v", name, st, err)
		}
		for _, q := range []string{"lighthouse keeper", "saltmarsh sparrows"} {
			if docs, err := c.Search(context.Background(), q, 3); err != nil || len(docs) == 0 {
				t.Errorf("%s: %q no longer found: %v", name, q, err)
			}
		}
	}
}

// Creating a corpus on a disk with no room left fails as a full disk and
// leaves no half-made corpus behind (it would read as damaged); with room
// again, the same ingest works.
func TestNewCorpusOnAFullDisk(t *testing.T) {
	disk := mountTmpfs(t, "1m")
	dir := filepath.Join(disk, "corpora")
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "The lighthouse keeper lit the lamp at dusk."})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(disk, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for _, werr := f.Write(make([]byte, 64<<10)); werr == nil; _, werr = f.Write(make([]byte, 64<<10)) {
	}
	f.Close()

	_, err = Index(context.Background(), dir, "fresh", []string{src}, IndexOptions{})
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("creating a corpus on a full disk: %v, want a disk-full error", err)
	}
	if Exists(dir, "fresh") {
		t.Error("a half-made corpus is left behind")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if rep := mustIndex(t, dir, "fresh", src); rep.Indexed != 1 {
		t.Errorf("with room again: %+v", rep)
	}
}

// A write the file system refuses for lack of write access is read-only,
// never damage: the corpus is healthy.
func TestReadOnlyWhy(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "root.bolt", Err: syscall.EROFS}, "read-only file system"},
		{errors.New("mkdir /x/corpora/new: read-only file system"), "read-only file system"},
		{&fs.PathError{Op: "open", Path: "root.bolt", Err: syscall.EACCES}, "no write permission"},
		{&fs.PathError{Op: "open", Path: "root.bolt", Err: syscall.EPERM}, "no write permission"},
		{&fs.PathError{Op: "write", Path: "seg.zap", Err: syscall.ENOSPC}, ""},
		{errors.New("unexpected EOF"), ""},
	} {
		if got := readOnlyWhy(tt.err); got != tt.want {
			t.Errorf("readOnlyWhy(%v) = %q, want %q", tt.err, got, tt.want)
		}
		err := damagedOpen("notes", "/x/corpora/notes", tt.err, true)
		if ro := errors.Is(err, ErrReadOnly); ro != (tt.want != "") || (ro && errors.Is(err, ErrDamaged)) {
			t.Errorf("damagedOpen(%v) = %v", tt.err, err)
		}
	}
}
