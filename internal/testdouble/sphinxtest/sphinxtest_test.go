package sphinxtest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var docs = [2][]Doc{
	{{ID: "a", Title: "alpha", Text: "alpha shard one"}},
	{{ID: "b", Title: "beta", Text: "beta shard two <&> \"quoted\" \x01 control"}},
}

// alive reports whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state …
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func waitDead(t *testing.T, pids []int) {
	t.Helper()
	start := time.Now()
	for _, pid := range pids {
		for alive(pid) {
			if time.Since(start) > 20*time.Second {
				t.Fatalf("searchd %d still running %v later", pid, time.Since(start))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Logf("searchd processes gone %v after", time.Since(start).Round(time.Millisecond))
}

func TestStartAndCleanup(t *testing.T) {
	if _, _, err := Installed(); err != nil {
		t.Skip(err)
	}
	var pids []int
	var addrs []string
	t.Run("cluster", func(t *testing.T) {
		c := Start(t, docs)
		for i := range 2 {
			pids = append(pids, c.Node(i).Pid())
			addrs = append(addrs, c.Node(i).SQLAddr, c.Node(i).APIAddr)
			if !alive(c.Node(i).Pid()) {
				t.Fatalf("node %d not running", i)
			}
		}
		for _, a := range addrs {
			if !strings.HasPrefix(a, "127.0.0.1:") {
				t.Errorf("listens on %s", a)
			}
		}
	})
	// (Whether the ports are closed is not checked: a cluster of a test
	// running in parallel may have taken them since.)
	waitDead(t, pids)
}

// A test process that dies without running its cleanups (SIGKILL) leaves
// no searchd behind: each one's watchdog kills it.
func TestWatchdog(t *testing.T) {
	if os.Getenv("SPHINXTEST_CHILD") == "1" {
		c := Start(t, docs)
		fmt.Printf("PIDS %d %d\n", c.Node(0).Pid(), c.Node(1).Pid())
		time.Sleep(time.Minute)
		return
	}
	if _, _, err := Installed(); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdog$", "-test.v")
	cmd.Env = append(os.Environ(), "SPHINXTEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "PIDS" {
			for _, s := range f[1:] {
				n, _ := strconv.Atoi(s)
				pids = append(pids, n)
			}
			break
		}
	}
	if len(pids) != 2 {
		t.Fatalf("the child did not start a cluster")
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("searchd %d not running", pid)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	waitDead(t, pids)
}

// A port taken by another process between picking and binding makes the
// start try again with other ports, promptly (searchd itself would retry
// the bind for a minute).
func TestPortTaken(t *testing.T) {
	if _, _, err := Installed(); err != nil {
		t.Skip(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	calls := 0
	pickPorts = func(n int) ([]int, error) {
		calls++
		ports, err := freePorts(n)
		if calls == 1 && err == nil {
			ports[0] = busy.Addr().(*net.TCPAddr).Port
		}
		return ports, err
	}
	defer func() { pickPorts = freePorts }()
	start := time.Now()
	c := Start(t, docs)
	took := time.Since(start)
	t.Logf("started in %v after %d picks", took.Round(time.Millisecond), calls)
	if calls != 2 || c.Addr == busy.Addr().String() {
		t.Errorf("%d picks, address %s (busy %s)", calls, c.Addr, busy.Addr())
	}
	if took > 20*time.Second {
		t.Errorf("start took %v", took)
	}
}
