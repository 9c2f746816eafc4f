package fakellm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// waitFirst sleeps for the configured latency; false when the client left.
func (s *Server) waitFirst(ctx context.Context) bool {
	return sleep(ctx, s.cfg.latency)
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// streamPieces writes every chunk through write, flushing each, with the
// reply's pacing; it drops the connection when DieAfter says so. It returns
// false when the client went away or the connection was dropped.
func streamPieces(w http.ResponseWriter, r *http.Request, g generation, write func(piece string, i int)) bool {
	fl, _ := w.(http.Flusher)
	if g.endless {
		return streamEndless(w, r, g, write)
	}
	for i, p := range g.pieces {
		if g.dieAfter > 0 && i >= g.dieAfter {
			die(fl)
		}
		if g.killAfter > 0 && i >= g.killAfter {
			if fl != nil {
				fl.Flush()
			}
			g.kill()
			return false
		}
		if !sleep(r.Context(), g.delay) {
			return false
		}
		write(p, i)
		if fl != nil {
			fl.Flush()
		}
	}
	if g.dieAfter > 0 {
		die(fl)
	}
	return r.Context().Err() == nil
}

// die flushes what was written and drops the connection without ending the
// response, as a crashed server does.
func die(fl http.Flusher) {
	if fl != nil {
		fl.Flush()
	}
	panic(http.ErrAbortHandler)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakellm: marshal: %v", err))
	}
	return b
}

// streamEndless cycles through the pieces until the client leaves.
func streamEndless(w http.ResponseWriter, r *http.Request, g generation, write func(piece string, i int)) bool {
	fl, _ := w.(http.Flusher)
	for i := 0; ; i++ {
		if !sleep(r.Context(), g.delay) {
			return false
		}
		write(g.pieces[i%len(g.pieces)], i)
		if fl != nil {
			fl.Flush()
		}
	}
}
