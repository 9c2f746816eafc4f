package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fixture"
)

// The helper process: the test binary re-run with PREFRAG_STORE_HELPER set
// plays a second prefrag process.
const helperEnv = "PREFRAG_STORE_HELPER"

func helperCommand(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process for other tests")
	}
	var err error
	switch mode {
	case "interrupted":
		err = helperInterrupted(os.Getenv("HELPER_DB"), os.Getenv("HELPER_SESSION"))
	case "stress":
		err = helperStress(os.Getenv("HELPER_DB"), os.Getenv("HELPER_NAME"), os.Getenv("HELPER_SECONDS"))
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

// helperInterrupted stores a session up to its first answer, says "ready"
// and waits to be killed (it gives up by itself after a minute).
func helperInterrupted(path, id string) error {
	s, err := Open(context.Background(), path)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: id, Question: fixture.Question}); err != nil {
		return err
	}
	for _, ev := range fixture.Events(id)[:14] {
		if err := s.AppendEvent(ctx, ev); err != nil {
			return err
		}
	}
	fmt.Println("ready")
	time.Sleep(time.Minute)
	return fmt.Errorf("not killed within a minute")
}

// stressReport is what a stress helper prints when its time is up.
type stressReport struct {
	Sessions int      `json:"sessions"`
	Events   int      `json:"events"`
	Reads    int      `json:"reads"`
	Errors   []string `json:"errors"`
}

func helperStress(path, name, secs string) error {
	n, err := strconv.Atoi(secs)
	if err != nil {
		return err
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer s.Close()
	rep := stressReport{Errors: []string{}}
	fail := func(err error) {
		if len(rep.Errors) < 20 {
			rep.Errors = append(rep.Errors, err.Error())
		}
	}
	ctx := context.Background()
	deadline := time.Now().Add(time.Duration(n) * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		id := fmt.Sprintf("%s-%06d", name, i)
		if err := s.CreateSession(ctx, Session{ID: id, Question: fixture.Question, Corpora: []string{"wiki"}}); err != nil {
			fail(err)
			continue
		}
		rep.Sessions++
		for _, ev := range fixture.Events(id) {
			if err := s.AppendEvent(ctx, ev); err != nil {
				fail(err)
				continue
			}
			rep.Events++
		}
		if err := s.FinishSession(ctx, id, StatusAnswered, fixture.FinalAnswer, "CORRECT", nil); err != nil {
			fail(err)
		}
		if i%5 == 0 {
			if _, err := s.ListSessions(ctx, Filter{Limit: 20}); err != nil {
				fail(err)
			}
			if _, err := s.GetSession(ctx, id); err != nil {
				fail(err)
			}
			rep.Reads += 2
		}
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

func TestInterruptedWhenOwnerKilled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prefrag.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const id = "5d1c0f7a-kill"
	cmd := helperCommand(t, "interrupted", "HELPER_DB="+path, "HELPER_SESSION="+id)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}

	rec, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Session.Status != StatusRunning || rec.Session.Owner.PID != cmd.Process.Pid {
		t.Fatalf("while the helper runs: status %q owner %+v, want running by pid %d", rec.Session.Status, rec.Session.Owner, cmd.Process.Pid)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Right away, while the killed helper may still be an unreaped zombie.
	check := func(when string) {
		t.Helper()
		rec, err := s.GetSession(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Session.Status != StatusInterrupted {
			t.Errorf("%s: GetSession status = %q, want interrupted", when, rec.Session.Status)
		}
		if len(rec.Lines) != 14 {
			t.Errorf("%s: %d events, want all 14", when, len(rec.Lines))
		}
		list, err := s.ListSessions(ctx, Filter{Status: StatusInterrupted})
		if err != nil || len(list) != 1 || list[0].ID != id {
			t.Errorf("%s: ListSessions(interrupted) = %v, %v", when, list, err)
		}
		if running, _ := s.ListSessions(ctx, Filter{Status: StatusRunning}); len(running) != 0 {
			t.Errorf("%s: still listed as running", when)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		// A SIGKILL is delivered asynchronously: the kernel may need a moment
		// before the process is a zombie. No store-side timeout is involved.
		st, err := readProcStat(cmd.Process.Pid)
		if err != nil || st.state == 'Z' || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	check("before reaping")
	cmd.Wait()
	check("after reaping")

	// The marking reached the database: a fresh store sees it too.
	s2, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var status string
	if err := s2.r.QueryRow("SELECT status FROM sessions WHERE id = ?", id).Scan(&status); err != nil || status != StatusInterrupted {
		t.Errorf("stored status = %q, %v", status, err)
	}
	if res, err := s2.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Errorf("integrity_check = %q, %v", res, err)
	}
}

func stressSeconds(t *testing.T) int {
	if v := os.Getenv("PREFRAG_STRESS_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PREFRAG_STRESS_SECONDS=%q is not a positive number", v)
		}
		return n
	}
	return 5
}

// TestConcurrentProcesses runs two processes writing sessions into one
// database (and this one reading) for PREFRAG_STRESS_SECONDS (default 5;
// PREFRAG_STRESS_SECONDS=60 is the long run, e.g. before a release). Neither may see a single error.
func TestConcurrentProcesses(t *testing.T) {
	secs := stressSeconds(t)
	path := filepath.Join(t.TempDir(), "prefrag.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	names := []string{"tui", "ask"}
	reports := make([]stressReport, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		cmd := helperCommand(t, "stress", "HELPER_DB="+path, "HELPER_NAME="+name, "HELPER_SECONDS="+strconv.Itoa(secs))
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmd.Wait()
			if err != nil {
				t.Errorf("%s helper: %v", name, err)
				return
			}
			if err := json.Unmarshal([]byte(out.String()), &reports[i]); err != nil {
				t.Errorf("%s helper printed %q: %v", name, out.String(), err)
			}
		}()
	}
	// Meanwhile this process reads, as a third prefrag would.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	reads := 0
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(100 * time.Millisecond):
			if _, err := s.ListSessions(ctx, Filter{Limit: 50}); err != nil {
				t.Errorf("parent read: %v", err)
			}
			reads++
		}
	}

	total := 0
	for i, r := range reports {
		t.Logf("%s: %d sessions, %d events, %d reads in %ds", names[i], r.Sessions, r.Events, r.Reads, secs)
		if len(r.Errors) > 0 {
			t.Errorf("%s saw %d errors, first: %s", names[i], len(r.Errors), r.Errors[0])
		}
		if r.Sessions == 0 {
			t.Errorf("%s wrote nothing", names[i])
		}
		total += r.Sessions
	}
	t.Logf("parent: %d reads", reads)
	all, err := s.ListSessions(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != total {
		t.Errorf("database holds %d sessions, helpers wrote %d", len(all), total)
	}
	var events int
	if err := s.r.QueryRow("SELECT count(*) FROM events").Scan(&events); err != nil {
		t.Fatal(err)
	}
	if want := total * len(fixture.Events("x")); events != want {
		t.Errorf("database holds %d events, want %d", events, want)
	}
	if res, err := s.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Errorf("integrity_check = %q, %v", res, err)
	}
}
