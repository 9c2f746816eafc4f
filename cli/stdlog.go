package cli

import (
	"io"
	"log"
	"os"
	"sync"
)

// routeLibraryLog sends Go's standard logger, which libraries write to
// (Bleve logs damaged snapshots there), to the log file: the terminal never
// shows it. The file is opened on the first line; when it cannot be, the
// line is dropped.
func routeLibraryLog(path string) {
	log.SetOutput(&lazyLog{path: path})
}

type lazyLog struct {
	path string
	once sync.Once
	w    io.Writer
}

func (l *lazyLog) Write(p []byte) (int, error) {
	l.once.Do(func() {
		l.w = io.Discard
		if f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			l.w = f
		}
	})
	_, _ = l.w.Write(p)
	return len(p), nil
}
