package store

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Owner identifies the process that runs a session. PID alone is not enough:
// pids are reused, so the process start time (field 22 of /proc/<pid>/stat,
// in clock ticks since boot) and the boot id are recorded too.
type Owner struct {
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	Start uint64 `json:"start,omitempty"` // 0 when /proc is not available
	Boot  string `json:"boot,omitempty"`  // /proc/sys/kernel/random/boot_id
}

// procRoot is where the proc filesystem is mounted.
const procRoot = "/proc"

func currentOwner() Owner {
	host, _ := os.Hostname()
	o := Owner{Host: host, PID: os.Getpid(), Boot: bootID()}
	if st, err := readProcStat(o.PID); err == nil {
		o.Start = st.start
	}
	return o
}

func bootID() string {
	b, err := os.ReadFile(procRoot + "/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// procStat is what the store needs from /proc/<pid>/stat.
type procStat struct {
	state byte   // R, S, D, Z, X, …
	start uint64 // starttime, clock ticks after boot
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", procRoot, pid))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(string(b))
}

var errProcStat = errors.New("malformed /proc stat line")

// parseProcStat reads the state (field 3) and the start time (field 22) of a
// /proc/<pid>/stat line. The command name (field 2) is in parentheses and may
// itself contain spaces and parentheses, so fields are counted from the last
// ')'.
func parseProcStat(line string) (procStat, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 || !strings.Contains(line[:end], "(") {
		return procStat{}, errProcStat
	}
	fields := strings.Fields(line[end+1:])
	// fields[0] is field 3 (state), so field 22 is fields[19].
	if len(fields) < 20 || len(fields[0]) != 1 || !isStateLetter(fields[0][0]) {
		return procStat{}, errProcStat
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("%w: start time %q", errProcStat, fields[19])
	}
	return procStat{state: fields[0][0], start: start}, nil
}

// isStateLetter reports whether c can be a process state (R, S, D, Z, T,
// t, X, I …: always a letter).
func isStateLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// ownerState is what can be said about a session's owner from here.
type ownerState int

const (
	ownerAlive   ownerState = iota
	ownerGone               // the process no longer exists (or is a zombie)
	ownerUnknown            // another host: nothing can be checked
)

// check tells whether the owner o still runs, as seen by the process me.
// No timeout is involved: a session is interrupted the moment its process is
// gone.
func (me Owner) check(o Owner) ownerState {
	if o.Host != me.Host {
		return ownerUnknown
	}
	if o.PID <= 0 {
		return ownerGone
	}
	if o.Boot != "" && me.Boot != "" && o.Boot != me.Boot {
		return ownerGone // the machine rebooted since
	}
	if o.PID == me.PID && o.Start == me.Start {
		return ownerAlive
	}
	st, err := readProcStat(o.PID)
	switch {
	case err == nil:
		if st.state == 'Z' || st.state == 'X' {
			return ownerGone // killed, not yet reaped by its parent
		}
		if o.Start != 0 && st.start != o.Start {
			return ownerGone // the pid belongs to another process now
		}
		return ownerAlive
	case errors.Is(err, os.ErrNotExist) && procMounted():
		return ownerGone
	}
	// No /proc: ask the kernel whether the pid exists.
	p, err := os.FindProcess(o.PID)
	if err != nil {
		return ownerGone
	}
	if err := p.Signal(syscall.Signal(0)); err != nil && !errors.Is(err, syscall.EPERM) {
		return ownerGone
	}
	return ownerAlive
}

func procMounted() bool {
	_, err := os.Stat(procRoot + "/self/stat")
	return err == nil
}
