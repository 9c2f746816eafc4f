package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// process is a stdio server started by prefrag: its own process group, so
// that stopping it stops whatever it started (npx starts node), and its
// standard error kept in a small tail for the reasons prefrag gives.
type process struct {
	cmd    *exec.Cmd
	stderr *tail
	done   chan struct{} // closed when the process has been waited for
	err    error         // its exit status, once done
}

// startProcess starts the server's command with pipes for the protocol.
// The returned reader and writer are prefrag's ends of its stdout and stdin.
func startProcess(srv Server) (*process, io.ReadCloser, io.WriteCloser, error) {
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = os.Environ()
	for k, v := range srv.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, err
	}
	p := &process{cmd: cmd, stderr: &tail{max: 4096}, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	// A grandchild holding stderr open does not hold up Wait for long.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, nil, startError(srv, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, outR, inW, nil
}

// startError says why a command did not start, in words.
func startError(srv Server, err error) error {
	var ee *exec.Error
	switch {
	case errors.As(err, &ee) && errors.Is(ee.Err, exec.ErrNotFound):
		return fmt.Errorf("its command %q was not found (install it, or give its full path in the declaration)", srv.Command)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("its command %q does not exist", srv.Command)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("its command %q may not be run (permission denied)", srv.Command)
	}
	return fmt.Errorf("its command %q did not start: %v", srv.Command, err)
}

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, string) {
	select {
	case <-p.done:
	default:
		return false, ""
	}
	how := "exited"
	if p.err != nil {
		how = "exited (" + p.err.Error() + ")"
	}
	if t := p.stderr.last(); t != "" {
		how += "; its last words: " + t
	}
	return true, how
}

// waitExit waits up to d for the process to end by itself.
func (p *process) waitExit(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// stop ends the process and everything in its group: prefrag has closed
// its stdin already (the protocol's shutdown); a process still running
// after grace gets SIGTERM, then SIGKILL. It returns once the process has
// been waited for, so no zombie is left.
func (p *process) stop(grace time.Duration) {
	if !p.waitExit(grace) {
		signalGroup(p.cmd, false)
		if !p.waitExit(grace) {
			signalGroup(p.cmd, true)
			<-p.done
		}
	}
	// The leader is gone; whatever it started goes with it.
	signalGroup(p.cmd, true)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(b), nil
}

// last is the last non-empty line written, at most 200 characters.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if r := []rune(l); len(r) > 200 {
		l = string(r[:200]) + "…"
	}
	return l
}
