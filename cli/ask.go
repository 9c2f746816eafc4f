package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
)

// askOptions are `ask`'s: the run settings are applied to the
// configuration; rf says which flags were given.
type askOptions struct {
	rf       *config.RunFlags
	Out      outputFlags
	Continue string // --continue: the session whose thread this question follows
	Question string
}

// askCommand is `prefrag ask`. With --json a failure before the session
// starts is an error event on stdout too.
func askCommand(e *env, args []string) (err error) {
	if askWantsJSON(args) {
		watch := &startWatch{w: e.stdout}
		e2 := *e
		e2.stdout, e = watch, &e2
		defer func() { watch.reportStartFailure(err) }()
	}
	return newCmd(parseAsk, runAsk)(e, args)
}

func parseAsk(e *env, args []string) (*askOptions, error) {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	o := &askOptions{}
	rf, out := bindRunFlags(fs, e.cfg)
	fs.StringVar(&o.Continue, "continue", "", continueHelp)
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, "ask [flags] QUESTION")
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := rf.Apply(); err != nil {
		return nil, err
	}
	if err := checkContinue(fs, o.Continue); err != nil {
		return nil, err
	}
	o.rf, o.Out, o.Question = rf, *out, strings.TrimSpace(strings.Join(pos, " "))
	if o.Question == "" {
		return nil, usagef("ask needs a question: prefrag ask \"What …?\"")
	}
	return o, resolveNeverLeave(e)
}

func runAsk(e *env, o *askOptions) error {
	s := e.cfg.Settings
	s.WebChosen = e.cfg.WebChosen()
	out := newEventWriter(e.stdout, o.Out.JSON, o.Out.Tokens)
	asker := newTerminalConsent(e.stdin, e.stderr, out.holdSpinner)
	sayWebAsk(e, s.Web, asker != nil)
	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	req := app.AskRequest{Question: o.Question, Settings: s}
	if o.Continue != "" {
		if req.Continue, err = prepareContinue(e, a, o.rf, &req.Settings, o.Continue); err != nil {
			return err
		}
		req.Explicit = explicitPrivacy(o.rf)
	}
	req.Emit = out.write
	if asker != nil {
		req.Consent = asker.ask
	}
	out.attachTerminal(e.stdout, e.getenv)
	res, err := a.Ask(e.ctx, req)
	out.flush()
	return askError(err, res)
}

// sayWebAsk says on stderr what web policy "ask" does here: on a terminal
// each web query is put to the user, headless none is sent.
func sayWebAsk(e *env, web string, terminal bool) {
	switch {
	case web != engine.WebAsk:
	case terminal && !e.cfg.WebChosen():
		fmt.Fprintln(e.stderr, "prefrag: no web policy chosen yet, so each web query is put to you here before it is sent; "+e.cfg.WebChoiceAdvice())
	case terminal:
	case !e.cfg.WebChosen():
		fmt.Fprintln(e.stderr, "prefrag: "+e.cfg.WebChoiceHint())
	default:
		fmt.Fprintln(e.stderr, "prefrag: "+e.cfg.WebAskHeadlessHint())
	}
}

// askError is the error an ask ends with: nil when answered (a forced
// answer too).
func askError(err error, res app.AskResult) error {
	if err == nil {
		return nil
	}
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
