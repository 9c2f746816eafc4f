package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/store"
)

// continueHelp is the help of ask's --continue flag.
const continueHelp = "ask a follow-up in the thread of session `ID` (or \"last\", the latest session): the question is first rewritten into a standalone one"

// checkContinue refuses a --continue given with nothing to continue
// (--continue ""): leaving the flag out starts a new thread, an empty value
// is a mistake (an unset shell variable), not a wish for a new thread.
func checkContinue(fs *flag.FlagSet, ref string) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "continue" })
	if given && strings.TrimSpace(ref) == "" {
		return usagef("--continue needs a session id or \"last\" (`prefrag sessions list` shows the ids); leave the flag out to start a new thread")
	}
	return nil
}

// prepareContinue resolves what --continue names and, when --corpus was
// not given, searches the thread's corpora: a follow-up runs with this
// command's settings otherwise. It returns the session id to continue.
func prepareContinue(e *env, a *app.App, rf *config.RunFlags, s *engine.RunConfig, ref string) (string, error) {
	id, err := a.ResolveContinue(e.ctx, ref)
	if err != nil {
		return "", err
	}
	if rf.Set("corpus") {
		return id, nil
	}
	corpora, err := a.ThreadCorpora(e.ctx, id)
	if err != nil {
		return "", err
	}
	if len(corpora) > 0 {
		s.Corpora = corpora
	}
	return id, nil
}

// explicitPrivacy names the privacy settings given as flags on this
// command: only those loosen what a thread keeps from its earlier turns.
func explicitPrivacy(rf *config.RunFlags) []string {
	var out []string
	if rf.Set("web") {
		out = append(out, engine.PrivacyWeb)
	}
	if rf.Set("never-leave") {
		out = append(out, engine.PrivacyNeverLeave)
	}
	return out
}

// rewriteBlock prints a follow-up's rewrite: the turn it opens, the
// question as asked and the standalone question the thread made of it.
func rewriteBlock(w io.Writer, ev engine.Event, p engine.Rewrite) {
	fmt.Fprintf(w, "\n════ Turn %d ════\n", engine.TurnOf(ev))
	fmt.Fprintf(w, "Follow-up: %s\n", line(p.Original))
	if p.Privacy != nil {
		fmt.Fprintf(w, "Privacy: %s\n", line(p.Privacy.Describe()))
	}
	if strings.TrimSpace(p.Rewritten) == strings.TrimSpace(p.Original) {
		fmt.Fprintf(w, "Rewritten question: (unchanged) %s\n", line(p.Rewritten))
		return
	}
	fmt.Fprintf(w, "Rewritten question: %s\n", line(p.Rewritten))
}

// threadQuestion is a session's question in a list: the first question of
// its thread, with the number of turns when it has follow-ups.
func threadQuestion(s store.Session, n int) string {
	q := oneLineTrunc(s.Question, n)
	if s.Turns > 1 {
		q += fmt.Sprintf(" (%d turns)", s.Turns)
	}
	return q
}

// followUps are the questions of a stored thread after its first, as they
// were asked (each is rewritten again when re-run).
func followUps(events []engine.Event) []string {
	var out []string
	for _, ev := range events {
		if rw, ok := ev.Payload.(engine.Rewrite); ok {
			out = append(out, rw.Original)
		}
	}
	return out
}

// rerunFollowUps re-runs the follow-ups of a thread, in order, as turns of
// the re-run session id.
func rerunFollowUps(e *env, a *app.App, id string, qs []string, s engine.RunConfig, emit engine.Emitter) error {
	for _, q := range qs {
		if _, err := a.Ask(e.ctx, app.AskRequest{Question: q, Settings: s, Emit: emit, Continue: id}); err != nil {
			return err
		}
	}
	return nil
}
