package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/store"
)

// ErrNoThread is matched when a session cannot be continued.
var ErrNoThread = errors.New("session cannot be continued")

// LastSession is the id AskRequest.Continue takes for the newest session.
const LastSession = "last"

// threadOf reads the session a follow-up continues ("last": the newest
// one) and builds its thread from the stored events.
func (a *App) threadOf(ctx context.Context, ref string) (string, *engine.Thread, error) {
	id, err := a.ResolveContinue(ctx, ref)
	if err != nil {
		return "", nil, err
	}
	rec, err := a.Store.GetSession(ctx, id)
	var bad *store.BadEventError
	if err != nil && !errors.As(err, &bad) {
		return "", nil, err
	}
	if rec.Session.Status == store.StatusRunning {
		return "", nil, fmt.Errorf("%w: session %s is still running; wait for its answer", ErrNoThread, id)
	}
	th := engine.ThreadFrom(rec.Events)
	if th == nil {
		return "", nil, fmt.Errorf("%w: session %s recorded no events", ErrNoThread, id)
	}
	resolveThreadNeverLeave(a.Cfg.CorporaDir(), th)
	return rec.Session.ID, th, nil
}

// ResolveContinue turns what --continue was given (an id, a unique prefix
// or "last") into a session id.
func (a *App) ResolveContinue(ctx context.Context, ref string) (string, error) {
	if ref != LastSession {
		return a.Store.ResolveID(ctx, ref)
	}
	id, err := a.Store.LatestSession(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("%w: there is no session yet; ask a first question without --continue", ErrNoThread)
	}
	return id, err
}

// ThreadCorpora are the corpora the session id searched: a follow-up
// searches them unless it names its own.
func (a *App) ThreadCorpora(ctx context.Context, id string) ([]string, error) {
	rec, err := a.Store.GetSession(ctx, id)
	if rec == nil {
		return nil, err
	}
	// A session with an event that does not decode still names its
	// corpora (threadOf says what else it lacks).
	return append([]string(nil), rec.Session.Corpora...), nil
}

// openSession records a new session, or reopens the session a follow-up
// continues.
func (a *App) openSession(ctx context.Context, sess store.Session, thread *engine.Thread) error {
	if thread == nil {
		return a.Store.CreateSession(ctx, sess)
	}
	return a.Store.ContinueSession(ctx, sess.ID)
}

// sessionAnswer is the answer and label a session shows after a run: the
// run's, or for a follow-up that gave none (failed, cancelled early) the
// thread's latest answer.
func sessionAnswer(res engine.Result, thread *engine.Thread) (string, string) {
	if res.Answer != "" || thread == nil || len(thread.Turns) == 0 {
		return res.Answer, res.Label
	}
	prev := thread.Turns[len(thread.Turns)-1]
	return prev.Answer, prev.Label
}
