package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// startWatch is stdout of `ask --json`: it remembers whether anything was
// written, i.e. whether a session started (its first event is the session
// event).
type startWatch struct {
	w       io.Writer
	written bool
}

func (s *startWatch) Write(p []byte) (int, error) {
	if len(p) > 0 {
		s.written = true
	}
	return s.w.Write(p)
}

// reportStartFailure writes the one event of an `ask --json` that failed
// before a session started (a bad flag value, the LLM server unreachable,
// the model missing, …), so that a script reading stdout learns why, not
// only a person reading stderr. No session exists: `session` is empty and
// nothing is stored.
func (s *startWatch) reportStartFailure(err error) {
	if err == nil || s.written || errors.Is(err, flag.ErrHelp) {
		return
	}
	ev := engine.Event{Seq: 1, Time: time.Now().UTC(), Payload: engine.Notice{Message: oneLine(err), Fatal: true}}
	b, merr := json.Marshal(ev)
	if merr != nil {
		return
	}
	s.w.Write(append(b, '\n'))
}

// askWantsJSON reports whether ask's raw arguments ask for --json (the last
// occurrence wins, as in flag parsing), so that an error in an earlier flag
// still gets its JSON event.
func askWantsJSON(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "json" {
			continue
		}
		if !hasVal {
			on = true
			continue
		}
		b, err := strconv.ParseBool(val)
		on = err == nil && b
	}
	return on
}
