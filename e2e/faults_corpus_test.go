package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Faults of the corpora on disk: a corrupted or incomplete index, a full
// disk, an unreadable folder. Nothing panics, the damaged corpus is named
// with the next step, the other corpora keep working and nothing stored is
// lost.

// bleveLogLine is a line of Go's standard logger (Bleve logs there).
var bleveLogLine = regexp.MustCompile(`(?m)^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2} `)

// calm checks that output shows no crash and no library log line.
func calm(t *testing.T, what, stdout, stderr string) {
	t.Helper()
	all := stdout + stderr
	for _, bad := range []string{"panic", "goroutine", "runtime error"} {
		if strings.Contains(all, bad) {
			t.Errorf("%s: output mentions %q:\n%s", what, bad, all)
		}
	}
	if bleveLogLine.MatchString(stderr) || strings.Contains(stderr, "unable to load snapshot") {
		t.Errorf("%s: a library log line reached the terminal:\n%s", what, stderr)
	}
}

// corpusSentence checks that stderr is one "prefrag: …" line holding every
// part.
func corpusSentence(t *testing.T, what, stderr string, parts ...string) {
	t.Helper()
	s := strings.TrimSpace(stderr)
	if strings.Count(s, "\n") > 0 || !strings.HasPrefix(s, "prefrag: ") {
		t.Errorf("%s: stderr is not one sentence: %q", what, stderr)
	}
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%s: stderr %q lacks %q", what, s, p)
		}
	}
}

type corpusRow struct {
	Name      string `json:"name"`
	Documents int64  `json:"documents"`
	Passages  int64  `json:"passages"`
	Damaged   bool   `json:"damaged"`
	Problem   string `json:"problem"`
}

// corporaJSON lists the corpora by name.
func corporaJSON(t *testing.T, stdout string) map[string]corpusRow {
	t.Helper()
	rows := map[string]corpusRow{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if line == "" {
			continue
		}
		var r corpusRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("corpora --json line %q: %v", line, err)
		}
		rows[r.Name] = r
	}
	return rows
}

// rmArgs deletes a corpus without a question, with --yes when this build
// has it (a terminal-less rm may need it).
func (w *world) rmArgs(name string) []string {
	help, _, _ := w.run("corpora", "-h")
	if strings.Contains(help, "-yes") {
		return []string{"corpora", "rm", name, "--yes"}
	}
	return []string{"corpora", "rm", name}
}

func TestFaultCorruptedCorpus(t *testing.T) {
	damages := []struct {
		name   string
		damage func(t *testing.T, corpus string)
	}{
		{"root.bolt bytes flipped", func(t *testing.T, corpus string) {
			p := filepath.Join(corpus, "store", "root.bolt")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// The page id of every page after the two meta pages.
			for pg := 2; (pg+1)*4096 <= len(b); pg++ {
				for i := pg * 4096; i < pg*4096+8; i++ {
					b[i] ^= 0xff
				}
			}
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a .zap segment deleted", func(t *testing.T, corpus string) {
			zaps, _ := filepath.Glob(filepath.Join(corpus, "store", "*.zap"))
			if len(zaps) == 0 {
				t.Fatal("no .zap segment")
			}
			if err := os.Remove(zaps[0]); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			w := newWorld(t, caseStudyScript())
			if out, errOut, code := w.run("index", "--corpus", "bad", w.docs); code != 0 {
				t.Fatalf("index bad: %d %s %s", code, out, errOut)
			}
			out, _, _ := w.run("corpora", "--json")
			before := corporaJSON(t, out)
			d.damage(t, filepath.Join(w.home, "data", "corpora", "bad"))
			next := "prefrag corpora rm bad"

			out, errOut, code := w.run("corpora")
			calm(t, "corpora", out, errOut)
			if code != 0 {
				t.Errorf("corpora: exit %d", code)
			}
			if !regexp.MustCompile(`(?m)^bad\s+\?\s+\?\s+.*DAMAGED`).MatchString(out) ||
				!regexp.MustCompile(fmt.Sprintf(`(?m)^wiki\s+%d\s+%d\s`, before["wiki"].Documents, before["wiki"].Passages)).MatchString(out) {
				t.Errorf("corpora listing:\n%s", out)
			}
			corpusSentence(t, "corpora", errOut, `corpus "bad" is damaged`, next)

			out, errOut, _ = w.run("corpora", "--json")
			calm(t, "corpora --json", out, errOut)
			rows := corporaJSON(t, out)
			if !rows["bad"].Damaged || !strings.Contains(rows["bad"].Problem, next) || rows["wiki"] != before["wiki"] {
				t.Errorf("corpora --json: %+v, before %+v", rows, before)
			}

			for _, args := range [][]string{
				{"search", "--corpus", "bad", "pH"},
				{"index", "--corpus", "bad", w.docs},
				w.askArgs("--corpus", "bad", "--web", "never", caseQuestion),
			} {
				out, errOut, code := w.run(args...)
				calm(t, args[0], out, errOut)
				if code != 1 {
					t.Errorf("%s of the damaged corpus: exit %d, want 1", args[0], code)
				}
				corpusSentence(t, args[0], errOut, `corpus "bad" is damaged`, next)
			}

			out, errOut, code = w.run("search", "--corpus", "wiki", "pH", "acidity")
			calm(t, "search wiki", out, errOut)
			if code != 0 || !strings.Contains(out, "Sørensen") {
				t.Errorf("search of the healthy corpus: %d\n%s%s", code, out, errOut)
			}
			out, errOut, code = w.run(w.askArgs("--corpus", "wiki", "--web", "never", caseQuestion)...)
			calm(t, "ask wiki", out, errOut)
			if code != 0 {
				t.Errorf("ask with the healthy corpus: exit %d\n%s%s", code, out, errOut)
			}

			out, errOut, code = w.run(w.rmArgs("bad")...)
			calm(t, "corpora rm", out, errOut)
			if code != 0 || !strings.Contains(out, "deleted corpus bad") {
				t.Errorf("rm of the damaged corpus: %d %q %q", code, out, errOut)
			}
			out, errOut, _ = w.run("corpora", "--json")
			if rows := corporaJSON(t, out); len(rows) != 1 || rows["wiki"] != before["wiki"] || errOut != "" {
				t.Errorf("after rm: %+v %q", rows, errOut)
			}
			if out, errOut, code := w.run("index", "--corpus", "bad", w.docs); code != 0 {
				t.Errorf("index bad again: %d %s %s", code, out, errOut)
			}
			if log, err := os.ReadFile(filepath.Join(w.home, "data", "prefrag.log")); err == nil {
				t.Logf("log file: %d bytes, %d Bleve line(s)", len(log), len(bleveLogLine.FindAll(log, -1)))
			}
		})
	}
}

// A disk that fills up during index: the run stops with one sentence and
// exit 1, what was stored before is kept, the other corpus is untouched,
// and once there is room the same command finishes the job.
func TestFaultDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a full disk is a small tmpfs, which only root can mount")
	}
	const size = "3m"
	w := newWorld(t, caseStudyScript())
	disk := filepath.Join(t.TempDir(), "disk")
	os.MkdirAll(disk, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", disk).CombinedOutput(); err != nil {
			t.Errorf("umount: %v %s", err, out)
		}
	})
	// The world's home moves onto the small disk.
	old := filepath.Join(w.home, "data")
	os.RemoveAll(old)
	if err := os.Symlink(disk, old); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"wiki", "other"} {
		if out, errOut, code := w.run("index", "--corpus", name, w.docs); code != 0 {
			t.Fatalf("index %s: %d %s %s", name, code, out, errOut)
		}
	}
	out, _, _ := w.run("corpora", "--json")
	before := corporaJSON(t, out)

	big := filepath.Join(w.home, "big")
	os.MkdirAll(big, 0o755)
	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, "w%d x%d y%d z%d. ", i, i*7, i*13, i*31)
		if i%40 == 39 {
			sb.WriteString("\n\n")
		}
	}
	var srcBytes int
	for f := 0; f < 8; f++ {
		text := fmt.Sprintf("file %d ", f) + sb.String()
		srcBytes += len(text)
		os.WriteFile(filepath.Join(big, fmt.Sprintf("big%d.txt", f)), []byte(text), 0o644)
	}
	t0 := time.Now()
	out, errOut, code := w.run("index", "--corpus", "wiki", w.docs, big)
	took := time.Since(t0)
	t.Logf("tmpfs %s, %d KB of text to index: index stopped after %v (exit %d)", size, srcBytes>>10, took.Round(time.Millisecond), code)
	calm(t, "index onto a full disk", out, errOut)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	corpusSentence(t, "index onto a full disk", errOut, `corpus "wiki"`, "is full", "run the same command again")
	if took > 60*time.Second {
		t.Errorf("the full disk took %v to report", took)
	}

	out, errOut, code = w.run("corpora", "--json")
	calm(t, "corpora", out, errOut)
	after := corporaJSON(t, out)
	if code != 0 || after["other"] != before["other"] || after["wiki"].Documents < before["wiki"].Documents || after["wiki"].Damaged {
		t.Errorf("corpora after the disk filled: %+v, before %+v (%s)", after, before, errOut)
	}
	for _, name := range []string{"wiki", "other"} {
		out, errOut, code := w.run("search", "--corpus", name, "Carlsberg Laboratory")
		calm(t, "search "+name, out, errOut)
		if code != 0 || !strings.Contains(out, "Carlsberg") {
			t.Errorf("search %s after the disk filled: %d\n%s%s", name, code, out, errOut)
		}
	}

	// Room again: the same command completes.
	if out, err := exec.Command("mount", "-o", "remount,size=64m", disk).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	t0 = time.Now()
	out, errOut, code = w.run("index", "--corpus", "wiki", w.docs, big)
	calm(t, "index again", out, errOut)
	if code != 0 || !strings.Contains(out, "now holds 10 documents") {
		t.Errorf("index with room again: %d\n%s%s", code, out, errOut)
	}
	t.Logf("the same command with room again: %v\n%s", time.Since(t0).Round(time.Millisecond), out)
}

// A folder that cannot be read, re-indexed by a user that permissions
// apply to: its documents stay, it is listed, and the run exits 1; once
// readable again, the next run is clean and real deletions still count.
func TestFaultUnreadableFolder(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	bin := binary
	runAs := func(args ...string) (string, string, int) {
		t.Helper()
		return w.run(args...)
	}
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("running as root without setpriv (util-linux): cannot run prefrag as a user that file permissions apply to")
		}
		// A binary and a home that nobody (65534) can use.
		shared, err := os.MkdirTemp("", "prefrag-e2e-nobody-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(shared) })
		os.Chmod(shared, 0o755)
		bin = filepath.Join(shared, "prefrag")
		copyExecutable(t, binary, bin)
		w.home = filepath.Join(shared, "home")
		w.docs = filepath.Join(w.home, "docs")
		os.MkdirAll(filepath.Join(w.docs, "sub"), 0o755)
		filepath.WalkDir(shared, func(p string, _ os.DirEntry, _ error) error { return os.Lchown(p, 65534, 65534) })
		runAs = func(args ...string) (string, string, int) {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", bin}, args...)...)
			cmd.Env = w.env()
			var o, e bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &e
			err := cmd.Run()
			if cmd.ProcessState == nil {
				t.Fatalf("%v: %v", args, err)
			}
			return o.String(), e.String(), cmd.ProcessState.ExitCode()
		}
	}
	write := func(rel, text string) {
		p := filepath.Join(w.docs, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sorensen.md", "# S. P. L. Sørensen\n\nSøren Sørensen introduced the concept of pH.\n")
	write("gone.txt", "A note deleted before the second run.\n")
	write("sub/olsen.txt", "Carsten Olsen was a Danish plant ecologist.\n")
	write("sub/deep/kjeldahl.txt", "Johan Kjeldahl led the chemistry department of the Carlsberg Laboratory.\n")
	if os.Geteuid() == 0 {
		filepath.WalkDir(w.docs, func(p string, _ os.DirEntry, _ error) error { return os.Lchown(p, 65534, 65534) })
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(w.docs, "sub"), 0o755) })

	out, errOut, code := runAs("index", "--corpus", "notes", w.docs)
	if code != 0 {
		t.Fatalf("first index: %d\n%s%s", code, out, errOut)
	}
	out, _, _ = runAs("corpora", "--json")
	before := corporaJSON(t, out)["notes"]

	os.Remove(filepath.Join(w.docs, "gone.txt"))
	if err := os.Chmod(filepath.Join(w.docs, "sub"), 0); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runAs("index", "--corpus", "notes", w.docs)
	calm(t, "index with an unreadable folder", out, errOut)
	if code != 1 {
		t.Errorf("exit %d, want 1 (incomplete)\n%s%s", code, out, errOut)
	}
	sub := filepath.Join(w.docs, "sub")
	if !strings.Contains(out, sub+": cannot read this folder (permission denied)") || !strings.Contains(out, "1 removed") ||
		!strings.Contains(out, "2 indexed files could not be read or found, and are kept") {
		t.Errorf("the report does not list the folder and what was kept:\n%s", out)
	}
	corpusSentence(t, "index with an unreadable folder", errOut, "corpus notes", "incomplete", "run the same command again")
	out, _, _ = runAs("corpora", "--json")
	if got := corporaJSON(t, out)["notes"]; got.Documents != before.Documents-1 || got.Passages != before.Passages-1 {
		t.Errorf("documents %d, passages %d; before %d, %d: only the deleted file may go", got.Documents, got.Passages, before.Documents, before.Passages)
	}
	for _, q := range []string{"Olsen plant ecologist", "Kjeldahl chemistry"} {
		out, errOut, code := runAs("search", "--corpus", "notes", q)
		if code != 0 || strings.Contains(out, "no documents") {
			t.Errorf("%q is lost: %d\n%s%s", q, code, out, errOut)
		}
	}

	// Readable again: a clean run, nothing re-read.
	os.Chmod(sub, 0o755)
	out, errOut, code = runAs("index", "--corpus", "notes", w.docs)
	if code != 0 || !strings.Contains(out, "0 indexed, 3 unchanged, 0 removed") || errOut != "" {
		t.Errorf("run after the fix: %d\n%s%s", code, out, errOut)
	}
}

func copyExecutable(t *testing.T, from, to string) {
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
