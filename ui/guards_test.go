package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
	"github.com/prefrag/prefrag/llm"
)

// gatedHealth answers the start-up health check only when released.
type gatedHealth struct {
	release chan struct{}
	err     error
}

func (g gatedHealth) Check(ctx context.Context) error {
	select {
	case <-g.release:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inspectModel runs fn on the model in the program's goroutine and waits.
func (h *harness) inspectModel(fn func(*Model)) {
	h.t.Helper()
	done := make(chan struct{})
	h.tm.Send(inspect{fn: fn, done: done})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		h.t.Fatal("the program did not answer the inspection")
	}
}

// A start-up health check that answers after a run has failed with an
// unreachable server must not take back the run's explanation (it was
// asked before the run's failure was known): the banner stays.
func TestLateHealthCheckKeepsTheRunsFailure(t *testing.T) {
	for _, late := range []error{nil, errors.New("health check: some other trouble")} {
		t.Run(fmt.Sprint(late), func(t *testing.T) {
			g := gatedHealth{release: make(chan struct{}), err: late}
			h := newHarness(t, func(_ *harness, d *Deps) { d.Health = g })
			unreachable := &llm.UnreachableError{Backend: "ollama", Addr: "127.0.0.1:11434", Err: errors.New("connection refused")}
			h.runner.events = append(h.runner.events[:1], engine.Event{Session: scripted.SessionID, Seq: 2, Payload: engine.Notice{Message: unreachable.Error(), Fatal: true}})
			h.runner.fail = fmt.Errorf("step 1: %w", unreachable)
			h.ask("Anything?")
			h.waitFor("Failed", "Install Ollama", "cannot reach the ollama server")
			close(g.release)
			checked := false
			deadline := time.Now().Add(10 * time.Second)
			for !checked && time.Now().Before(deadline) {
				h.inspectModel(func(m *Model) { checked = m.sh.healthChecked })
				time.Sleep(10 * time.Millisecond)
			}
			if !checked {
				t.Fatal("the health check never reported")
			}
			if s := h.plain(); !strings.Contains(s, "Install Ollama") || !strings.Contains(s, "cannot reach the ollama server") {
				t.Fatalf("the late health check took back the run's failure:\n%s", s)
			}
		})
	}
}

// After a run answered, a late start-up health check that failed does not
// put up a banner: the model has just answered.
func TestLateHealthCheckAfterAnAnswer(t *testing.T) {
	g := gatedHealth{release: make(chan struct{}), err: &llm.UnreachableError{Backend: "ollama", Addr: "127.0.0.1:11434", Err: errors.New("connection refused")}}
	h := newHarness(t, func(_ *harness, d *Deps) { d.Health = g })
	h.ask(scripted.Question)
	h.finalSeen()
	close(g.release)
	checked := false
	deadline := time.Now().Add(10 * time.Second)
	for !checked && time.Now().Before(deadline) {
		h.inspectModel(func(m *Model) { checked = m.sh.healthChecked })
		time.Sleep(10 * time.Millisecond)
	}
	if !checked {
		t.Fatal("the health check never reported")
	}
	if s := h.plain(); strings.Contains(s, "Install Ollama") || strings.Contains(s, "cannot reach the ollama server") {
		t.Fatalf("a health check asked before the answer put up a banner:\n%s", s)
	}
}
