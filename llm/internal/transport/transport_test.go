package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/llm"
)

func TestParseBaseURL(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434", false},
		{"http://127.0.0.1:11434/", "http://127.0.0.1:11434", false},
		{"https://llm.example.org/ollama/", "https://llm.example.org/ollama", false},
		{"127.0.0.1", "http://127.0.0.1:11434", false},
		{"localhost:8080", "http://localhost:8080", false},
		{"[::1]", "http://[::1]:11434", false},
		{"0.0.0.0:11434/", "http://0.0.0.0:11434", false},
		{" http://h:1?x=y#f ", "http://h:1", false},
		{"", "", true},
		{"unix:///tmp/sock", "", true},
		{"http://", "", true},
	}
	for _, tt := range tests {
		u, err := ParseBaseURL(tt.in, "11434")
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseBaseURL(%q) error %v", tt.in, err)
			continue
		}
		if err == nil && u.String() != tt.want {
			t.Errorf("ParseBaseURL(%q) = %q, want %q", tt.in, u, tt.want)
		}
	}
}

func TestWatchdog(t *testing.T) {
	t.Run("first byte", func(t *testing.T) {
		ctx, wd := Watch(context.Background(), 20*time.Millisecond, time.Hour)
		defer wd.Stop()
		<-ctx.Done()
		if s := wd.Stalled(); s == nil || !s.FirstByte {
			t.Fatalf("Stalled() = %v", s)
		}
		var se *StallError
		if !errors.As(context.Cause(ctx), &se) {
			t.Errorf("cause %v", context.Cause(ctx))
		}
	})
	t.Run("a tick replaces the first-byte limit", func(t *testing.T) {
		ctx, wd := Watch(context.Background(), 200*time.Millisecond, time.Hour)
		defer wd.Stop()
		wd.Tick()
		time.Sleep(400 * time.Millisecond)
		if ctx.Err() != nil {
			t.Fatalf("cancelled after a tick: %v", context.Cause(ctx))
		}
	})
	t.Run("idle fires after a tick", func(t *testing.T) {
		ctx, wd := Watch(context.Background(), time.Hour, 20*time.Millisecond)
		defer wd.Stop()
		wd.Tick()
		<-ctx.Done()
		if s := wd.Stalled(); s == nil || s.FirstByte {
			t.Fatalf("Stalled() = %v, want an idle stall", s)
		}
	})
	t.Run("zero disables", func(t *testing.T) {
		ctx, wd := Watch(context.Background(), 0, 0)
		wd.Tick()
		time.Sleep(20 * time.Millisecond)
		if ctx.Err() != nil || wd.Stalled() != nil {
			t.Fatal("fired with limits disabled")
		}
		wd.Stop()
		if ctx.Err() == nil || wd.Stalled() != nil {
			t.Fatal("Stop must cancel the derived context without a stall")
		}
	})
}

func TestClassify(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	dialErr := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	stalledCtx, wd := Watch(context.Background(), time.Nanosecond, 0)
	<-stalledCtx.Done()
	tests := []struct {
		name   string
		parent context.Context
		wd     *Watchdog
		err    error
		check  func(error) bool
	}{
		{"caller cancelled", cancelled, nil, errors.New("x"), func(e error) bool { return errors.Is(e, context.Canceled) }},
		{"stall", context.Background(), wd, context.Canceled, func(e error) bool {
			var se *llm.ServerError
			return errors.As(e, &se) && se.Status == 0
		}},
		{"dial", context.Background(), nil, fmt.Errorf("post: %w", dialErr), func(e error) bool { return errors.Is(e, llm.ErrUnreachable) }},
		{"EOF mid-stream", context.Background(), nil, io.ErrUnexpectedEOF, func(e error) bool {
			var se *llm.ServerError
			return errors.As(e, &se)
		}},
		{"typed passes through", context.Background(), nil, &llm.ModelNotFoundError{Model: "m"}, func(e error) bool {
			return errors.Is(e, llm.ErrModelNotFound)
		}},
		{"nil", context.Background(), nil, nil, func(e error) bool { return e == nil }},
	}
	// The address of a server that is up: a broken stream from it is the
	// server's failure, not an unreachable server.
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	for _, tt := range tests {
		if got := Classify(tt.parent, "ollama", "http://"+up.Addr().String(), tt.wd, tt.err); !tt.check(got) {
			t.Errorf("%s: Classify = %v (%T)", tt.name, got, got)
		}
	}
}

// A connection reset by a server that is gone (killed mid-run) is an
// unreachable server; the same reset from a server that still accepts
// connections is the server's failure.
func TestClassifyResetByDeadServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	reset := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	var se *llm.ServerError
	if got := Classify(context.Background(), "llamacpp", addr, nil, reset); !errors.As(got, &se) {
		t.Errorf("server up: %v (%T)", got, got)
	}
	ln.Close()
	got := Classify(context.Background(), "llamacpp", addr, nil, reset)
	if !errors.Is(got, llm.ErrUnreachable) || !strings.Contains(got.Error(), "cannot reach the llamacpp server") {
		t.Errorf("server gone: %v (%T)", got, got)
	}
}

// A health check whose own limit fired is a timeout when the server
// accepts connections, and unreachable when nothing does.
func TestCheckErrorTimeoutOrGone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	cctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-cctx.Done()
	got := CheckError(context.Background(), cctx, "ollama", addr, time.Nanosecond, cctx.Err())
	if !errors.Is(got, llm.ErrTimeout) || errors.Is(got, llm.ErrUnreachable) || !strings.Contains(got.Error(), "within 1ns") ||
		!strings.Contains(got.Error(), "--llm-timeout") || strings.Contains(got.Error(), "start it") {
		t.Errorf("server up: %v", got)
	}
	ln.Close()
	if got := CheckError(context.Background(), cctx, "ollama", addr, time.Nanosecond, cctx.Err()); !errors.Is(got, llm.ErrUnreachable) {
		t.Errorf("server gone: %v", got)
	}
}
