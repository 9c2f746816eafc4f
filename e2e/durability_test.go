package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/store"
)

// SIGKILL mid-stream: every event printed before the kill is in the store,
// the session reads as interrupted at once, and the database is intact.
func TestSIGKILLLeavesInterruptedSession(t *testing.T) {
	var calls int
	r := fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		if c.Schema != nil {
			return fakellm.Reply{Text: `{"analysis": "helps", "status": true}`}
		}
		calls++
		if calls == 1 {
			return fakellm.Reply{Text: "Thought: search first\nAction: Search_Engine\nAction Input: Danish chemist pH"}
		}
		// The second step streams slowly: the kill lands mid-stream.
		return fakellm.Reply{Text: strings.Repeat("still thinking ", 150), ChunkDelay: 10 * time.Millisecond}
	})
	w := newWorld(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := w.command(ctx, w.askArgs("--json", "--tokens", "--web", "never", caseQuestion)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var printed []string
	sc := bufio.NewScanner(stdout)
	tokens := 0
	for sc.Scan() {
		var ev struct{ Type string }
		json.Unmarshal(sc.Bytes(), &ev)
		if ev.Type == "token" {
			tokens++
			if tokens > 20 && len(printed) >= 6 {
				break // mid-stream of step 2
			}
			continue
		}
		printed = append(printed, sc.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if len(printed) < 6 {
		t.Fatalf("only %d events before the kill", len(printed))
	}

	list, _, code := w.run("sessions", "list", "--json")
	if code != 0 || !strings.Contains(list, `"status":"interrupted"`) {
		t.Fatalf("sessions list right after SIGKILL: %s", list)
	}
	var sess struct{ ID string }
	json.Unmarshal([]byte(list), &sess)
	shown, _, code := w.run("sessions", "show", sess.ID, "--json")
	if code != 0 {
		t.Fatalf("sessions show exit %d", code)
	}
	got := strings.Split(strings.TrimSpace(shown), "\n")
	if len(got) < len(printed) {
		t.Fatalf("stored %d events, %d were printed", len(got), len(printed))
	}
	for i := range printed {
		if got[i] != printed[i] {
			t.Errorf("event %d differs:\nprinted %s\nstored  %s", i+1, printed[i], got[i])
		}
	}
	text, _, _ := w.run("sessions", "show", sess.ID)
	if !strings.Contains(text, "interrupted") {
		t.Errorf("text show does not say interrupted:\n%s", text)
	}
	st, err := store.Open(context.Background(), filepath.Join(w.home, "data", "prefrag.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if res, err := st.IntegrityCheck(context.Background()); err != nil || res != "ok" {
		t.Errorf("integrity_check = %q, %v", res, err)
	}
}
