package e2e

import (
	"io"
	"os"
	"syscall"
)

var interruptSignal os.Signal = syscall.SIGINT

// readAll reads until EOF into buf.
func readAll(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
