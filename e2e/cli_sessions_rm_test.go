package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/store"
)

// `sessions rm` deletes sessions by id prefix or age with --yes, refuses
// without --yes when there is no terminal, and never deletes a session
// still running in a live process (this test process owns one).
func TestSessionsRm(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	home := filepath.Join(w.home, "data")
	os.MkdirAll(home, 0o755)
	st, err := store.Open(context.Background(), filepath.Join(home, "prefrag.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	old := time.Now().Add(-40 * 24 * time.Hour)
	for _, s := range []store.Session{
		{ID: "aaa111", Question: "old one", Started: old},
		{ID: "aaa222", Question: "old two", Started: old.Add(time.Hour)},
		{ID: "bbb333", Question: "recent", Started: time.Now().Add(-time.Hour)},
		{ID: "ccc444", Question: "running", Started: old},
	} {
		if err := st.CreateSession(ctx, s); err != nil {
			t.Fatal(err)
		}
		if s.ID != "ccc444" {
			if err := st.FinishSession(ctx, s.ID, store.StatusAnswered, "a", "", nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()

	list := func() string {
		out, errOut, code := w.run("sessions", "list", "--json")
		if code != 0 {
			t.Fatalf("list: %d %s", code, errOut)
		}
		return out
	}
	// No terminal, no --yes: nothing deleted, exit 2, one prefix.
	_, errOut, code := w.run("sessions", "rm", "bbb")
	if code != 2 || !strings.Contains(errOut, "--yes") || strings.Contains(errOut, "prefrag: prefrag:") {
		t.Errorf("rm without --yes: %d %q", code, errOut)
	}
	// By prefix.
	out, errOut, code := w.run("sessions", "rm", "--yes", "bbb")
	if code != 0 || !strings.Contains(out, "deleted session bbb333") {
		t.Errorf("rm bbb: %d %q %q", code, out, errOut)
	}
	if strings.Contains(list(), "bbb333") {
		t.Errorf("bbb333 still listed")
	}
	// By age: the two old finished ones go; the running one is refused.
	out, errOut, code = w.run("sessions", "rm", "--older-than", "30d", "--yes")
	if code != 1 || !strings.Contains(out, "deleted session aaa111") || !strings.Contains(out, "deleted session aaa222") ||
		!strings.Contains(errOut, "running") || strings.Count(errOut, "prefrag:") != 1 {
		t.Errorf("rm --older-than: %d\n%s\n%s", code, out, errOut)
	}
	l := list()
	if strings.Contains(l, "aaa1") || strings.Contains(l, "aaa2") || !strings.Contains(l, "ccc444") {
		t.Errorf("after rm --older-than:\n%s", l)
	}
	// An unknown id is an error, printed once.
	_, errOut, code = w.run("sessions", "rm", "--yes", "zzz")
	if code == 0 || strings.Count(errOut, "prefrag:") != 1 {
		t.Errorf("rm zzz: %d %q", code, errOut)
	}
}

// On a terminal `sessions rm` asks, and only "y" deletes.
func TestSessionsRmAsksOnATerminal(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	home := filepath.Join(w.home, "data")
	os.MkdirAll(home, 0o755)
	st, err := store.Open(context.Background(), filepath.Join(home, "prefrag.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.CreateSession(ctx, store.Session{ID: "ddd555", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishSession(ctx, "ddd555", store.StatusAnswered, "a", "", nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	listed := func() bool {
		out, errOut, code := w.run("sessions", "list", "--json")
		if code != 0 {
			t.Fatalf("list: %d %s", code, errOut)
		}
		return strings.Contains(out, "ddd555")
	}
	for _, answer := range []string{"n", "y"} {
		s := startTmux(t, w, w.home, "sessions", "rm", "ddd")
		s.waitFor("prompt", 15*time.Second, "Delete 1 session with its events", "[y/N]")
		s.text(answer)
		s.keys("Enter")
		exited(t, s)
		if listed() != (answer == "n") {
			t.Fatalf("answer %q: session listed = %v", answer, listed())
		}
	}
}
