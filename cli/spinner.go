package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/styles"
)

// A headless `ask` on a terminal shows what the run is doing now on a
// spinner line below the streamed output ("step 2 · searching notes",
// "judging", "writing the answer") and colours its badges like the TUI.
// The spinner line is the last line on screen: it is erased before any
// output line is printed and drawn again after, so it never ends up in the
// output. Piped, with --json, NO_COLOR or TERM=dumb, nothing of this
// happens: the output is plain text, byte for byte.

// terminalLook says whether w is a terminal that gets the spinner and
// colours, and the styles to draw them with.
func terminalLook(w io.Writer, getenv func(string) string) (*styles.Styles, bool) {
	f, ok := w.(*os.File)
	return lookFor(ok && term.IsTerminal(int(f.Fd())), getenv)
}

// lookFor is terminalLook once it is known whether stdout is a terminal.
func lookFor(tty bool, getenv func(string) string) (*styles.Styles, bool) {
	if !tty {
		return nil, false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return nil, false
	}
	return styles.New(!lightBackground(getenv("COLORFGBG")), false), true
}

// lightBackground reads COLORFGBG ("15;0" is light text on black): the
// background colour is the last field; 7 and 15 are light greys/white.
// Without it the terminal is taken as dark, as the TUI does until the
// terminal answers.
func lightBackground(colorfgbg string) bool {
	f := strings.Split(colorfgbg, ";")
	switch f[len(f)-1] {
	case "7", "15":
		return true
	}
	return false
}

// colourWriter downsamples the palette to what the terminal supports
// (256 colours in tmux, 16 in a Linux console).
func colourWriter(w io.Writer) io.Writer {
	return colorprofile.NewWriter(w, os.Environ())
}

// phaseTracker turns the events of a run into the phase it is in now.
type phaseTracker struct {
	cfg      *engine.RunConfig
	judge    bool // the strategy has a selection judge
	step     int  // the current step, from the last event that had one
	tokStep  int
	tokRole  string
	tokTail  string // the end of the streamed reply, for its labels
	reflects int
}

// next is the phase after ev; "" when the run is over.
func (p *phaseTracker) next(ev engine.Event, current string) string {
	if ev.Step > 0 {
		p.step = ev.Step
	}
	switch pl := ev.Payload.(type) {
	case engine.SessionStart:
		return p.started(pl)
	case engine.Rewrite:
		return "thinking"
	case engine.Gate:
		if pl.Retrieve {
			return "searching " + p.firstSource()
		}
		return "writing the answer"
	case engine.Token:
		return stepPhase(ev.Step, p.streaming(ev.Step, pl))
	case engine.Action:
		return stepPhase(ev.Step, "searching "+p.firstSource())
	case engine.Retrieval:
		if pl.Reflection || !sources.IsCorpus(pl.Source) || !p.judge {
			return current
		}
		return stepPhase(ev.Step, "judging")
	case engine.Selection:
		return p.selected(ev.Step, pl, current)
	case engine.Observation:
		return stepPhase(ev.Step+1, "thinking")
	case engine.Answer:
		if engine.NegativeLabel(pl.Label) && p.cfg != nil && p.reflects < p.cfg.MaxReflections {
			return stepPhase(ev.Step, "reflecting · searching every source")
		}
		return stepPhase(ev.Step, "finishing")
	case engine.Supplement:
		p.reflects++
		return stepPhase(ev.Step+1, "thinking")
	case engine.Final:
		return ""
	case engine.Notice:
		if pl.Fatal {
			return ""
		}
	case engine.Thought, engine.Refinement, engine.ThreadContext, engine.Evidence:
		// The phase goes on: a thought streams as tokens first, the
		// others come between phases.
	}
	return current
}

// stepPhase is what names step n's phase: "step 2 · judging" (what alone
// before the first step).
func stepPhase(n int, what string) string {
	if n <= 0 {
		return what
	}
	return fmt.Sprintf("step %d · %s", n, what)
}

// started is the phase a run starts in, and learns the run's settings.
func (p *phaseTracker) started(pl engine.SessionStart) string {
	p.cfg = pl.Config
	if p.cfg == nil {
		return "thinking"
	}
	if m, ok := engine.LookupStrategy(p.cfg.Strategy); ok {
		p.judge = m.Judge
		if m.Loop {
			return stepPhase(1, "thinking")
		}
	}
	return "thinking"
}

// streaming is what a streamed reply of step is doing, read from its
// labels so far: thinking, writing the answer or checking it.
func (p *phaseTracker) streaming(step int, pl engine.Token) string {
	if step != p.tokStep || pl.Role != p.tokRole {
		p.tokStep, p.tokRole, p.tokTail = step, pl.Role, ""
	}
	p.tokTail += pl.Text
	tail := strings.ToLower(p.tokTail)
	what := "thinking"
	switch {
	case pl.Role == "forced" || pl.Role == "answer":
		what = "writing the answer"
		if strings.Contains(tail, "self-evaluation") {
			what = "checking the answer"
		}
	case strings.Contains(tail, "self-evaluation"):
		what = "checking the answer"
	case strings.Contains(tail, "final answer"):
		what = "writing the answer"
	}
	// Keep only what a label split across deltas needs.
	if len(p.tokTail) > 4096 {
		p.tokTail = p.tokTail[len(p.tokTail)-64:]
	}
	return what
}

// selected is the phase after the judge: on when the local documents
// suffice, else searching the next source.
func (p *phaseTracker) selected(step int, pl engine.Selection, current string) string {
	if pl.Status != nil && *pl.Status {
		return current
	}
	next := "the next source"
	if pl.NextSource != nil {
		next = sourceName(*pl.NextSource)
	}
	return stepPhase(step, "searching "+next)
}

// firstSource is where a search goes first: the preferred corpus, else the
// web.
func (p *phaseTracker) firstSource() string {
	if p.cfg != nil && len(p.cfg.Corpora) > 0 {
		return line(p.cfg.Corpora[0])
	}
	return "the web"
}

// sourceName is "notes" for local:notes and "the web" for any web engine.
func sourceName(source string) string {
	n, ok := sources.ParseName(line(source))
	if ok && n.Kind == sources.KindWeb {
		return "the web"
	}
	return n.ID
}

// spinnerFrames are the braille dots most terminal tools use.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinner draws the phase line. It is not safe for concurrent use: the
// eventWriter holds its lock around every call.
type spinner struct {
	st     *styles.Styles
	width  func() int
	start  time.Time
	now    func() time.Time
	phase  string
	frame  int
	shown  bool
	erased int // how many times the line was erased (tests)
}

// eraseSeq returns the cursor to the start of the line and clears it.
const eraseSeq = "\r\x1b[2K"

func (s *spinner) erase(w io.Writer) {
	if !s.shown {
		return
	}
	io.WriteString(w, eraseSeq)
	s.shown = false
	s.erased++
}

// draw writes the line for the current phase (nothing when there is
// none), cut to the terminal's width so it never wraps.
func (s *spinner) draw(w io.Writer) {
	if s.phase == "" {
		s.erase(w)
		return
	}
	text := s.phase
	if s.now != nil && !s.start.IsZero() {
		text += fmt.Sprintf(" · %ds", int(s.now().Sub(s.start).Seconds()))
	}
	frame := spinnerFrames[s.frame%len(spinnerFrames)]
	if width := s.width(); width > 4 {
		text = ansi.Truncate(text, width-3, "…")
	}
	io.WriteString(w, eraseSeq+s.st.Accent.Render(frame)+" "+s.st.Dim.Render(text))
	s.shown = true
}

// spinnerTick is how often the spinner turns.
const spinnerTick = 120 * time.Millisecond

// attachTerminal gives o the spinner and colours when stdout is a terminal
// that wants them (see terminalLook); otherwise o stays plain.
func (o *eventWriter) attachTerminal(stdout io.Writer, getenv func(string) string) {
	if o.json {
		return
	}
	st, ok := terminalLook(stdout, getenv)
	if !ok {
		return
	}
	fd := int(stdout.(*os.File).Fd())
	width := func() int {
		w, _, err := term.GetSize(fd)
		if err != nil {
			return 80
		}
		return w
	}
	o.mu.Lock()
	o.w.Flush()
	o.w.Reset(colourWriter(stdout))
	o.withSpinner(st, width, time.Now)
	o.mu.Unlock()
	o.startTicker(spinnerTick)
}

// withSpinner switches on the spinner and the coloured badges; the caller
// holds o.mu.
func (o *eventWriter) withSpinner(st *styles.Styles, width func() int, now func() time.Time) {
	o.text.st = st
	o.spin = &spinner{st: st, width: width, now: now, phase: "starting"}
	if now != nil {
		o.spin.start = now()
	}
	o.spin.draw(o.w)
	o.w.Flush()
}

// spinEvent prints ev with the spinner line out of the way, then draws the
// line for the phase ev leads to. A token event prints nothing: the line
// is redrawn only when the phase changes. The caller holds o.mu.
func (o *eventWriter) spinEvent(ev engine.Event) {
	phase := o.phases.next(ev, o.spin.phase)
	if _, token := ev.Payload.(engine.Token); token {
		if phase != o.spin.phase {
			o.spin.phase = phase
			o.spin.draw(o.w)
			o.w.Flush()
		}
		return
	}
	o.spin.erase(o.w)
	o.text.render(o.w, ev)
	o.spin.phase = phase
	o.spin.draw(o.w)
	o.w.Flush()
}

func (o *eventWriter) startTicker(every time.Duration) {
	o.stopTick, o.tickDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(o.tickDone)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-o.stopTick:
				return
			case <-t.C:
				o.mu.Lock()
				if o.spin.shown {
					o.spin.frame++
					o.spin.draw(o.w)
					o.w.Flush()
				}
				o.mu.Unlock()
			}
		}
	}()
}

// stopSpinner stops the ticker and erases the line, so whatever follows
// (an error message, the shell prompt) starts on a clean line.
func (o *eventWriter) stopSpinner() {
	if o.stopTick != nil {
		o.stopOnce.Do(func() { close(o.stopTick) })
		<-o.tickDone
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.spin != nil {
		o.spin.phase = ""
		o.spin.erase(o.w)
	}
	o.w.Flush()
}
