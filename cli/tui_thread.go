package cli

import (
	"context"
	"errors"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/engine"
)

// Continue runs question as a follow-up in the thread of session id
// (ui.ThreadRunner).
func (r tuiRunner) Continue(ctx context.Context, id, question string, s engine.RunConfig, explicit []string, consent engine.ConsentFunc, emit func(engine.Event)) error {
	_, err := r.a.Ask(ctx, app.AskRequest{Question: question, Settings: s, Emit: emit, Consent: consent, Continue: id, Explicit: explicit})
	if errors.Is(err, engine.ErrCancelled) {
		return nil // the final event says so; the session is stored
	}
	var fe *engine.FatalError
	if errors.As(err, &fe) {
		return fe.Err
	}
	return err
}
