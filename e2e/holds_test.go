package e2e

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Issue 26 item 5: messages and writes that hold.

// bigSession imports the case study with a thought of about size bytes,
// so that writing its export takes a while, and returns its id.
func bigSession(t *testing.T, w *world, size int) string {
	t.Helper()
	doc, id := caseStudyExport(t)
	const thought = "I need to identify the Danish plant ecologist who assisted a Danish chemist famous for introducing the concept of pH. First I will find the chemist."
	if !strings.Contains(doc, thought) {
		t.Fatal("the case study's first thought changed")
	}
	long := strings.Repeat("The Danish plant ecologist assisted the chemist. ", size/49)
	doc = strings.Replace(doc, thought, long, 1)
	file := filepath.Join(w.home, "big.json")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := w.run("sessions", "import", file); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	os.Remove(file)
	return id
}

// killWhenWriting starts args and kills it with SIGKILL as soon as a file
// appears in dir that was not there before (the export or its temporary
// file). It reports whether the kill came before the process ended.
func (w *world) killWhenWriting(dir string, args ...string) bool {
	w.t.Helper()
	before := map[string]bool{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		before[e.Name()] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := w.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			if err != nil {
				w.t.Fatalf("%v ended before it wrote: %v %s", args, err, stderr.String())
			}
			return false
		default:
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !before[e.Name()] {
				cmd.Process.Signal(syscall.SIGKILL)
				err := <-done
				var exit interface{ Sys() any }
				if errors.As(err, &exit) {
					if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
						return true
					}
				}
				return false
			}
		}
	}
}

// A SIGKILL while `sessions export -o F` writes leaves F whole or absent
// (without --force) and the earlier F or the whole new one (with --force),
// never a cut file. Before, without --force the export was written into F
// itself: a kill left the first bytes of it, an invalid JSON document
// ("with --force it is atomic, without it is not").
func TestExportKilledMidWriteLeavesNoCutFile(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	id := bigSession(t, w, 16<<20)
	ref := filepath.Join(w.home, "ref.json")
	if _, errOut, code := w.run("sessions", "export", id, "--format", "json", "-o", ref); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	const old = "the earlier export\n"
	for _, force := range []bool{false, true} {
		killed := 0
		for round := 0; round < 3; round++ {
			dir := t.TempDir()
			target := filepath.Join(dir, "out.json")
			args := []string{"sessions", "export", id, "--format", "json", "-o", target}
			if force {
				args = append(args, "--force")
				if err := os.WriteFile(target, []byte(old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if w.killWhenWriting(dir, args...) {
				killed++
			}
			got, err := os.ReadFile(target)
			switch {
			case errors.Is(err, fs.ErrNotExist) && !force:
			case err != nil:
				t.Errorf("force %v: %v", force, err)
			case bytes.Equal(got, want), force && string(got) == old:
			default:
				t.Errorf("force %v: a kill left %s cut: %d of %d bytes", force, target, len(got), len(want))
			}
		}
		t.Logf("force %v: %d of 3 exports killed while writing", force, killed)
		if killed == 0 {
			t.Errorf("force %v: no kill landed while the export was being written", force)
		}
	}
}

// On a full disk (here: the file size limit of the process, ulimit -f 0,
// and when the test may mount one, a full tmpfs) the commands that only
// read work: `sessions list/show/search/export` to stdout and `search`,
// with one line on stderr saying the database is read-only for lack of
// room. A write still says that no room is left. Before, every sessions
// command failed with "no room left to write the session database".
func TestFullDiskReadsWork(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	doc, id := caseStudyExport(t)
	file := filepath.Join(w.home, "case.json")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := w.run("sessions", "import", file); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	reads := []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "list"}, "Danish plant ecologist"},
		{[]string{"sessions", "show", id[:7]}, "Final answer"},
		{[]string{"sessions", "search", "ecologist"}, "Danish plant ecologist"},
		{[]string{"sessions", "export", id, "--format", "md"}, "Carsten"},
		{[]string{"sessions", "export", "--all", "--format", "json"}, id},
		{[]string{"search", "--corpus", "wiki", "pH"}, "Sørensen"},
	}
	check := func(t *testing.T, run func(args ...string) (string, string, int), why string) {
		for _, r := range reads {
			out, errOut, code := run(r.args...)
			if code != 0 || !strings.Contains(out, r.want) {
				t.Errorf("%q with %s: exit %d\nstderr: %s\nstdout: %.300s", r.args, why, code, errOut, out)
				continue
			}
			if r.args[0] == "sessions" {
				w.msgCheck(r.args, errOut, code, 0, []string{"read-only here (no room left to write it: " + why + ")", "recording nothing"})
			}
		}
		_, errOut, code := run("sessions", "import", file)
		w.msgCheck([]string{"sessions import", why}, errOut, code, 1, []string{"no room left to write the session database", why})
	}
	t.Run("ulimit -f 0", func(t *testing.T) {
		check(t, func(args ...string) (string, string, int) { return w.msgRunFileLimit(0, args...) },
			"the file size limit of this process, ulimit -f, is reached")
	})
	t.Run("full file system", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to mount a small tmpfs")
		}
		data := filepath.Join(w.home, "data")
		// A private mount namespace: a 4 MiB tmpfs over the data folder,
		// holding a copy of it, then filled up.
		wrap := []string{"unshare", "-m", "sh", "-c", `cp -a "$1" "$1.copy" && mount -t tmpfs -o size=4m tmpfs "$1" && cp -a "$1.copy/." "$1" && rm -rf "$1.copy" && (dd if=/dev/zero of="$1/fill" bs=64k 2>/dev/null; true) && shift && exec "$@"`, "sh", data}
		if out, err := exec.Command("unshare", "-m", "sh", "-c", `mount -t tmpfs -o size=1m tmpfs "$1"`, "sh", t.TempDir()).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
		}
		check(t, func(args ...string) (string, string, int) { return w.runWith(wrap, args...) }, "the disk is full")
	})
}

// `index` in a home that cannot be written says so — read-only here, and
// what to do — for the corpus that exists and for a new one, and leaves the
// corpus as it was. Before, a healthy corpus was called damaged ("delete it
// with prefrag corpora rm"), which would have thrown it away.
func TestIndexInReadOnlyHome(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	data := filepath.Join(w.home, "data")
	var wrap []string
	if os.Geteuid() == 0 {
		if out, err := exec.Command("unshare", "-m", "sh", "-c", `mount --bind -o ro "$1" "$1"`, "sh", data).CombinedOutput(); err != nil {
			t.Skipf("root without a read-only bind mount: %v %s", err, out)
		}
		wrap = []string{"unshare", "-m", "sh", "-c", `mount --bind -o ro "$1" "$1" && shift && exec "$@"`, "sh", data}
	} else {
		filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o555)
			}
			return nil
		})
		t.Cleanup(func() {
			filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					os.Chmod(p, 0o755)
				}
				return nil
			})
		})
	}
	w.write("new.txt", "A new note about the Carlsberg Laboratory's soil studies.\n")
	for _, corpus := range []string{"wiki", "fresh"} {
		args := []string{"index", "--corpus", corpus, w.docs}
		_, errOut, code := w.runWith(wrap, args...)
		noPanic(t, "index", errOut)
		w.msgCheck(args, errOut, code, 1, []string{`corpus "` + corpus + `" cannot be written`, "read-only here", "PREFRAG_HOME"}, "damaged", "corpora rm")
		t.Logf("index --corpus %s (exit %d): %s", corpus, code, strings.TrimSpace(errOut))
	}
	// The corpus is healthy: searching it works, there and once writable.
	for _, wr := range [][]string{wrap, nil} {
		out, errOut, code := w.runWith(wr, "search", "--corpus", "wiki", "Carlsberg")
		if code != 0 || !strings.Contains(out, "Carlsberg") {
			t.Errorf("search after the refused index (wrap %v): exit %d %s\n%s", wr, code, errOut, out)
		}
	}
}

// A JSON Lines id over 512 bytes is reported by every `index` run while its
// document is missing, not only by the first. Before, the second run called
// the file unchanged and the document was silently missing.
func TestLongJSONLIDReportedEveryRun(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	w.write("c.jsonl", `{"id":"`+strings.Repeat("x", 600)+`","title":"Long","text":"A document about zebras."}`+"\n"+
		`{"id":"ok1","text":"A document about giraffes."}`+"\n")
	want := "c.jsonl:1: \"id\" is longer than 512 bytes"
	for run := 1; run <= 3; run++ {
		out, errOut, code := w.run("index", "--corpus", "wiki", w.docs)
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "1 .jsonl line left out") {
			t.Errorf("run %d: exit %d, the long id is not reported (%q):\n%s%s", run, code, want, out, errOut)
		}
		if run > 1 && !strings.Contains(out, "still not in the corpus") {
			t.Errorf("run %d does not say the document is still missing:\n%s", run, out)
		}
	}
}

// `bench evidence` on a file whose one record has a bad supporting fact
// names the fact (exit 2, one line). Before, the record was said to lack
// "question, answer, context and supporting_facts", which it has.
func TestBenchEvidenceNamesBadFact(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	f := filepath.Join(w.home, "one.json")
	body := `[{"_id": "r1", "question": "Which institute did Maren Holt direct?", "answer": "Velloran", "supporting_facts": [["Maren Holt", 4]],` +
		` "context": [["Maren Holt", ["Maren Holt is a chemist.", " She directed the Velloran Institute."]]]}]`
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	w.msgExpect([]string{"bench", "evidence", "--file", f}, 2,
		[]string{`the supporting fact ["Maren Holt",4] names sentence 4 of "Maren Holt", which has 2`, "name no sentence of"},
		"missing fields", "has question, answer, context and supporting_facts")
}

// Bounds with messages that name them: a cache TTL too long for any
// duration, and a context window past any model's, are refused with exit 2
// and one line naming the bound. Before, "99999999h" was called "not a
// duration" and --num-ctx took any number.
func TestBoundsNamedOnTheCommandLine(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{Steps: []string{"Final Answer: x"}})
	p := w.msgConfigFile("web_cache_ttl = \"99999999h\"\n")
	for _, args := range [][]string{{"config"}, {"sessions", "list"}} {
		w.msgExpect(args, 2, []string{"web_cache_ttl in " + p, `must be at most 87600h (about 10 years), not "99999999h"`}, "must be a duration")
	}
	w.msgConfigFile("num_ctx = 4000000\n")
	w.msgExpect([]string{"config"}, 2, []string{"num_ctx in " + p + " must be at most 2097152 (2M tokens), not 4000000"})
	w.msgConfigFile("")
	w.msgExpect([]string{"ask", "--llm-url", w.llm.URL(), "--web", "never", "--num-ctx", "99999999", "Q?"}, 2,
		[]string{"--num-ctx must be at most 2097152 (2M tokens), not 99999999"})
	w.msgExpect([]string{"ask", "--llm-timeout", "99999999h", "Q?"}, 2, []string{`invalid value "99999999h" for flag -llm-timeout: must be at most 24h (a day)`})
	if n := len(w.llm.Generations()); n != 0 {
		t.Errorf("%d LLM calls for refused settings", n)
	}
}
