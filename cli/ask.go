package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
)

func runAsk(e *env, args []string) (err error) {
	if askWantsJSON(args) {
		// A failure before the session starts is an error event too.
		watch := &startWatch{w: e.stdout}
		e2 := *e
		e2.stdout, e = watch, &e2
		defer func() { watch.reportStartFailure(err) }()
	}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	rf := config.BindRunFlags(fs, e.cfg)
	cont := fs.String("continue", "", continueHelp)
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, "ask [flags] QUESTION")
		return err
	}
	if err != nil {
		return err
	}
	if err := rf.Apply(); err != nil {
		return err
	}
	if err := checkContinue(fs, *cont); err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "" {
		return usagef("ask needs a question: prefrag ask \"What …?\"")
	}
	if err := resolveNeverLeave(e); err != nil {
		return err
	}
	s := e.cfg.Settings
	s.WebChosen = e.cfg.WebChosen()
	out := newEventWriter(e.stdout, rf.JSON, rf.Tokens)
	asker := newTerminalConsent(e.stdin, e.stderr, out.holdSpinner)
	switch {
	case s.Web == engine.WebAsk && asker != nil && !e.cfg.WebChosen():
		fmt.Fprintln(e.stderr, "prefrag: no web policy chosen yet, so each web query is put to you here before it is sent; "+e.cfg.WebChoiceAdvice())
	case s.Web == engine.WebAsk && asker != nil:
	case s.Web == engine.WebAsk && !e.cfg.WebChosen():
		fmt.Fprintln(e.stderr, "prefrag: "+e.cfg.WebChoiceHint())
	case s.Web == engine.WebAsk:
		fmt.Fprintln(e.stderr, "prefrag: "+e.cfg.WebAskHeadlessHint())
	}
	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	req := app.AskRequest{Question: question, Settings: s}
	if *cont != "" {
		if req.Continue, err = prepareContinue(e, a, rf, &req.Settings, *cont); err != nil {
			return err
		}
		req.Explicit = explicitPrivacy(rf)
	}
	req.Emit = out.write
	if asker != nil {
		req.Consent = asker.ask
	}
	out.attachTerminal(e.stdout, os.Getenv)
	res, err := a.Ask(e.ctx, req)
	out.flush()
	if err != nil {
		var de *app.DeadlineError
		if errors.As(err, &de) {
			return de // exit 1: no complete answer within the limit
		}
		if errors.Is(err, engine.ErrCancelled) {
			return errors.New("cancelled; the partial session is saved as " + res.SessionID)
		}
		var fe *engine.FatalError
		if errors.As(err, &fe) {
			return fe.Err
		}
		return err
	}
	return nil
}

// eventWriter prints events as JSON Lines or as readable text, flushing each
// line the moment it is written.
type eventWriter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	json   bool
	tokens bool
	text   textRenderer

	// A terminal's spinner line (spinner.go); nil when plain.
	spin     *spinner
	phases   phaseTracker
	stopTick chan struct{}
	tickDone chan struct{}
	stopOnce sync.Once
}

func newEventWriter(w io.Writer, asJSON, tokens bool) *eventWriter {
	return &eventWriter{w: bufio.NewWriter(w), json: asJSON, tokens: tokens, text: textRenderer{evidence: &evidenceMemo{}}}
}

func (o *eventWriter) write(ev engine.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.json {
		if _, token := ev.Payload.(engine.Token); token && !o.tokens {
			return
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return
		}
		o.w.Write(b)
		o.w.WriteByte('\n')
		o.w.Flush()
		return
	}
	if o.spin != nil {
		o.spinEvent(ev)
		return
	}
	if _, token := ev.Payload.(engine.Token); token {
		return
	}
	o.text.render(o.w, ev)
	o.w.Flush()
}

func (o *eventWriter) flush() {
	if o.spin != nil {
		o.stopSpinner()
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w.Flush()
}

// writeJSONLine prints raw stored event lines (sessions show --json).
func writeJSONLines(w io.Writer, lines []json.RawMessage) error {
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.Write(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
