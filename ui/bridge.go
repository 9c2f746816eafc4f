package ui

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
)

// A stream carries messages from a worker goroutine (a run, an ingest) to
// the Bubble Tea loop. The worker sends; one tea.Cmd at a time waits for
// the next messages and delivers everything already queued as one batch,
// so a flood of tokens costs one Update, not one per token.
type stream struct {
	id   int
	ch   chan tea.Msg
	quit <-chan struct{}
	once sync.Once

	// started is set when the worker goroutine starts; finished is closed
	// when it returns.
	started  atomic.Bool
	finished chan struct{}
}

// maxBatch bounds how many queued messages one batch delivers.
const maxBatch = 512

func newStream(id int, quit <-chan struct{}) *stream {
	return &stream{id: id, ch: make(chan tea.Msg, 1024), quit: quit, finished: make(chan struct{})}
}

// wait blocks until the worker has returned, at most d; it returns at once
// for a worker that never started.
func (s *stream) wait(d time.Duration) bool {
	if s == nil || !s.started.Load() {
		return true
	}
	select {
	case <-s.finished:
		return true
	case <-time.After(d):
		return false
	}
}

// send queues msg; it blocks while the queue is full (back-pressure on the
// worker) and gives up when the app is quitting.
func (s *stream) send(msg tea.Msg) bool {
	select {
	case s.ch <- msg:
		return true
	case <-s.quit:
		return false
	}
}

// close ends the stream after the messages already queued.
func (s *stream) close() { s.once.Do(func() { close(s.ch) }) }

// batchMsg is what a stream delivers. done is set after the last batch.
type batchMsg struct {
	stream int
	msgs   []tea.Msg
	done   bool
}

// next waits for the stream's next messages. Consecutive token deltas of
// one step and role in a batch arrive merged into one.
func (s *stream) next() tea.Cmd {
	return func() tea.Msg {
		b := s.collect()
		b.msgs = mergeTokens(b.msgs)
		return b
	}
}

func (s *stream) collect() batchMsg {
	var b batchMsg
	b.stream = s.id
	select {
	case m, ok := <-s.ch:
		if !ok {
			b.done = true
			return b
		}
		b.msgs = append(b.msgs, m)
	case <-s.quit:
		b.done = true
		return b
	}
	for len(b.msgs) < maxBatch {
		select {
		case m, ok := <-s.ch:
			if !ok {
				b.done = true
				return b
			}
			b.msgs = append(b.msgs, m)
		default:
			return b
		}
	}
	return b
}

// mergeTokens merges each run of consecutive token events of the same
// session, seq, step and role into one event carrying their text, in
// place; every other message keeps its place.
func mergeTokens(msgs []tea.Msg) []tea.Msg {
	out := msgs[:0]
	var text []string // deltas of the run at the end of out
	flush := func() {
		if len(text) > 1 {
			last := out[len(out)-1].(runEventMsg)
			tok := last.ev.Payload.(engine.Token)
			tok.Text = strings.Join(text, "")
			last.ev.Payload = tok
			out[len(out)-1] = last
		}
		text = text[:0]
	}
	for _, m := range msgs {
		rm, ok := m.(runEventMsg)
		tok, isToken := rm.ev.Payload.(engine.Token)
		if ok && isToken {
			if len(text) > 0 {
				prev := out[len(out)-1].(runEventMsg).ev
				if engine.MergeableTokens(prev, rm.ev) {
					text = append(text, tok.Text)
					continue
				}
			}
			flush()
			out = append(out, m)
			text = append(text, tok.Text)
			continue
		}
		flush()
		out = append(out, m)
	}
	flush()
	return out
}

// Messages of a run.
type (
	runEventMsg struct{ ev engine.Event }
	// consentMsg asks the user; the answer goes back on reply.
	consentMsg struct {
		req   engine.ConsentRequest
		reply chan<- engine.Consent
	}
	runDoneMsg struct{ err error }
)

// Messages of an ingest.
type (
	indexProgressMsg struct{ p IndexProgress }
	indexDoneMsg     struct {
		corpus string
		rep    IndexReport
		err    error
	}
)

// policyFunc returns the web policy in force right now.
type policyFunc func() string

// startRun runs question on r in its own goroutine, feeding s. The consent
// function honours a policy change made while the run is going: switching
// to auto allows the web for the rest of the run, switching to never
// denies it, and only "ask" shows the dialog.
func startRun(ctx context.Context, r Runner, s *stream, question string, set engine.RunConfig, policy policyFunc) {
	startRunFunc(s, policy, func(consent engine.ConsentFunc, emit func(engine.Event)) error {
		return r.Run(ctx, question, set, consent, emit)
	})
}

// startRunFunc runs run in its own goroutine, feeding s (startRun).
func startRunFunc(s *stream, policy policyFunc, run func(consent engine.ConsentFunc, emit func(engine.Event)) error) {
	consent := func(cctx context.Context, req engine.ConsentRequest) (engine.Consent, error) {
		switch policy() {
		case engine.WebAuto:
			if req.Guarded == "" {
				return engine.ConsentSession, nil
			}
			// Passages of a never-leave corpus are in the context: the
			// user is asked whatever the policy.
		case engine.WebNever:
			return engine.ConsentDeny, nil
		}
		reply := make(chan engine.Consent, 1)
		if !s.send(consentMsg{req: req, reply: reply}) {
			return engine.ConsentDeny, context.Canceled
		}
		select {
		case c := <-reply:
			return c, nil
		case <-cctx.Done():
			return engine.ConsentDeny, cctx.Err()
		case <-s.quit:
			return engine.ConsentDeny, context.Canceled
		}
	}
	emit := func(ev engine.Event) { s.send(runEventMsg{ev: ev}) }
	s.started.Store(true)
	go func() {
		defer close(s.finished)
		defer s.close()
		err := run(consent, emit)
		s.send(runDoneMsg{err: err})
	}()
}

// startIndex runs one ingest in its own goroutine. Progress snapshots are
// dropped while the queue is full: only the latest matters.
func startIndex(s *stream, index func(progress func(IndexProgress)) (IndexReport, error), corpus string) {
	progress := func(p IndexProgress) {
		select {
		case s.ch <- indexProgressMsg{p: p}:
		default:
		}
	}
	s.started.Store(true)
	go func() {
		defer close(s.finished)
		defer s.close()
		rep, err := index(progress)
		s.send(indexDoneMsg{corpus: corpus, rep: rep, err: err})
	}()
}
