//go:build unix

package retrieval

import (
	"os"
	"runtime"
	"syscall"
)

// childUsage is a finished child's peak resident set in bytes and its CPU
// time in seconds (user and system).
func childUsage(ps *os.ProcessState) (rss int64, cpu float64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, ps.UserTime().Seconds() + ps.SystemTime().Seconds()
	}
	rss = int64(ru.Maxrss)
	if runtime.GOOS != "darwin" {
		rss *= 1024 // kilobytes elsewhere, bytes on macOS
	}
	return rss, ps.UserTime().Seconds() + ps.SystemTime().Seconds()
}
