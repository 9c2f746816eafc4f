package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/internal/termtext"
	"github.com/prefrag/prefrag/ui/trajectory"
)

// inputLines is the height of the question input.
const inputLines = 3

// askPlaceholder is the question input's placeholder for a new thread.
const askPlaceholder = "Ask a question…  (Enter sends · Shift+Enter or Ctrl+J: new line)"

// refreshEvery is the most often a streaming trajectory is re-rendered.
const refreshEvery = 120 * time.Millisecond

// askScreen is where questions are asked and runs are watched.
type askScreen struct {
	sh     *shared
	input  textarea.Model
	typing bool
	tv     *trajView
	ikeys  askInputKeys
	tkeys  askTrajKeys

	traj      *trajectory.Trajectory
	run       *stream
	cancel    context.CancelFunc
	running   bool
	stopping  bool
	started   time.Time
	ended     time.Time
	runErr    error
	sessionID string

	dirty       bool
	tickPending bool

	notice    string
	noticeErr bool
	// fu is the thread the next question follows up (thread.go).
	fu thread

	// inputBox caches the rendered question box; it is rebuilt only after
	// something that can change it (a key, focus, size, style).
	inputBox      string
	inputBoxValid bool
	// typed holds characters typed but not yet in the input (ask_input.go).
	typed typedBuffer
	// history is the questions sent, for Up and Down (ask_history.go).
	history questionHistory
	// welcomeSig is what the welcome text was last rendered for.
	welcomeSig string
	// noticeLine caches the rendered notice for noticeSig.
	noticeLine, noticeSig string

	width, height int
}

type (
	// refreshMsg re-renders a streaming trajectory (throttled).
	refreshMsg struct{ stream int }
	// clockMsg redraws the elapsed time once a second during a run.
	clockMsg struct{ stream int }
)

func newAskScreen(sh *shared) *askScreen {
	a := &askScreen{sh: sh, tv: newTrajView(sh), ikeys: newAskInputKeys(), tkeys: newAskTrajKeys()}
	a.input = textarea.New()
	a.input.ShowLineNumbers = false
	a.input.Prompt = ""
	a.input.Placeholder = askPlaceholder
	a.input.CharLimit = 0 // questionLimit, enforced with a notice (ask_input.go)
	a.input.SetHeight(inputLines)
	a.input.KeyMap.InsertNewline = a.ikeys.Newline
	a.restyle()
	a.focusInput()
	return a
}

func (a *askScreen) restyle() {
	st := textarea.DefaultStyles(a.sh.st.IsDark)
	if a.sh.st.NoColor {
		plain := textarea.StyleState{Base: lipgloss.NewStyle(), Text: lipgloss.NewStyle(),
			Placeholder: lipgloss.NewStyle().Faint(true), CursorLine: lipgloss.NewStyle(),
			EndOfBuffer: lipgloss.NewStyle(), Prompt: lipgloss.NewStyle(), LineNumber: lipgloss.NewStyle(),
			CursorLineNumber: lipgloss.NewStyle(), Selection: lipgloss.NewStyle().Reverse(true)}
		st.Focused, st.Blurred = plain, plain
	} else {
		st.Focused.CursorLine = lipgloss.NewStyle()
	}
	st.Cursor.Blink = false
	a.input.SetStyles(st)
	a.inputBoxValid = false
	a.tv.restyle()
}

func (a *askScreen) focusInput() tea.Cmd {
	a.inputBoxValid = false
	a.typing = true
	return a.input.Focus()
}

func (a *askScreen) blurInput() {
	a.flushTyped()
	a.inputBoxValid = false
	a.typing = false
	a.input.Blur()
}

func (a *askScreen) setSize(w, h int) {
	a.inputBoxValid = false
	a.width, a.height = w, h
	a.input.SetWidth(w - 2)
	a.tv.setSize(w, a.paneHeight())
}

// paneHeight is what is left for the trajectory.
func (a *askScreen) paneHeight() int {
	banner := 0
	if b := a.bannerView(); b != "" {
		banner = lipgloss.Height(b)
	}
	return max(a.height-(inputLines+2)-banner-a.noticeHeight()-a.threadHeight(), 1)
}

func (a *askScreen) noticeHeight() int {
	if a.notice == "" {
		return 0
	}
	return 1
}

func (a *askScreen) note(msg string, isErr bool) {
	a.notice, a.noticeErr = msg, isErr
	a.setSize(a.width, a.height)
}

// update handles keys and the mouse for the ask screen.
func (a *askScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if a.typing {
			return a.updateInput(msg)
		}
		a.inputBoxValid = false
		return a.updateTrajectory(msg)
	case tea.PasteMsg:
		if a.typing {
			a.paste(msg.Content)
		}
	case typedFlushMsg:
		a.typed.ticking = false
		a.flushTyped()
	case tea.MouseWheelMsg:
		a.tv.update(msg)
	case refreshMsg:
		if a.run != nil && msg.stream == a.run.id {
			a.tickPending = false
			if a.dirty {
				a.dirty = false
				a.tv.refresh()
			}
		}
	case clockMsg:
		if a.running && a.run != nil && msg.stream == a.run.id {
			return a.clock()
		}
	}
	return nil
}

func (a *askScreen) updateInput(msg tea.KeyPressMsg) tea.Cmd {
	if a.plainText(msg) {
		// The box is redrawn when the buffer is flushed, not per key.
		return a.buffer(msg.Text)
	}
	a.flushTyped()
	a.inputBoxValid = false
	a.inputChanged()
	switch {
	case key.Matches(msg, a.ikeys.Send):
		q := strings.TrimSpace(a.input.Value())
		if q == "" {
			return nil
		}
		cmd := a.start(q)
		if a.running {
			a.history.add(q)
			a.input.Reset()
			a.inputBoxValid = false
			a.sent()
		}
		return cmd
	case key.Matches(msg, a.ikeys.NewThread):
		a.newThread()
		return nil
	case key.Matches(msg, a.ikeys.Older) && a.recall(true),
		key.Matches(msg, a.ikeys.Newer) && a.recall(false):
		return nil
	case key.Matches(msg, a.ikeys.Focus):
		a.blurInput()
		return nil
	case key.Matches(msg, a.ikeys.Cancel):
		if a.running {
			a.stop()
			return nil
		}
		a.blurInput()
		return nil
	}
	var cmd tea.Cmd
	a.input, cmd = a.input.Update(msg)
	return cmd
}

func (a *askScreen) updateTrajectory(msg tea.KeyPressMsg) tea.Cmd {
	if a.tv.modal() {
		a.tv.update(msg)
		return nil
	}
	switch {
	case key.Matches(msg, a.tkeys.Input):
		return a.focusInput()
	case key.Matches(msg, a.tkeys.Cancel):
		if a.running {
			a.stop()
		}
		return nil
	case key.Matches(msg, a.tkeys.Quit):
		if a.running {
			a.sh.open(confirmQuitMsg{})
			return nil
		}
		return tea.Quit
	case key.Matches(msg, a.tkeys.Export):
		if a.sessionID == "" || a.running {
			a.note("Nothing to export yet: export works once a run has ended.", false)
			return nil
		}
		id := a.sessionID
		a.sh.open(openExportMsg{ids: []string{id}})
		return nil
	case key.Matches(msg, a.tkeys.NewThread):
		a.newThread()
		return a.focusInput()
	}
	if a.tv.update(msg) {
		return nil
	}
	if msg.Text != "" && msg.Mod&^tea.ModShift == 0 {
		// A character no key of the trajectory takes is the start of a
		// question: it goes to the question box, not lost.
		return tea.Batch(a.focusInput(), a.updateInput(msg))
	}
	return nil
}

// start runs question. The goroutine is started by the returned command,
// not here: Update does no work of its own.
func (a *askScreen) start(question string) tea.Cmd {
	if a.running {
		a.note("A question is still running — Esc cancels it.", true)
		return nil
	}
	if a.sh.deps.Runner == nil {
		a.note("No LLM is configured: sessions and corpora work, asking needs a model server.", true)
		return nil
	}
	ctx, cancel := context.WithCancel(a.sh.ctx)
	s := a.sh.newStream()
	a.run, a.cancel, a.running, a.stopping = s, cancel, true, false
	// A refresh tick of the previous run may still be on its way; it will be
	// ignored (other stream), so this run starts with its own throttle.
	a.tickPending, a.dirty = false, false
	follow, threadID, explicit := a.threadRunner(), a.fu.id, a.explicitPrivacy()
	if follow == nil {
		// A new thread: a new trajectory; a follow-up's events go on in
		// the thread's own.
		a.traj = trajectory.New()
		a.traj.Question = question
		a.sessionID = ""
	}
	a.tv.set(a.traj, true)
	a.started, a.ended, a.runErr = a.sh.now(), time.Time{}, nil
	a.notice = ""
	a.setSize(a.width, a.height)
	runner, settings, policy := a.sh.deps.Runner, a.sh.runSettings(), a.sh.webPolicy
	return tea.Batch(func() tea.Msg {
		if follow != nil {
			startFollowUp(ctx, follow, threadID, s, question, settings, explicit, policy)
		} else {
			startRun(ctx, runner, s, question, settings, policy)
		}
		return s.next()()
	}, a.clock())
}

func (a *askScreen) clock() tea.Cmd {
	id := a.run.id
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return clockMsg{stream: id} })
}

// stop cancels the run; the engine still reports its final (cancelled)
// event, so the partial trajectory stays on screen and in the store.
func (a *askScreen) stop() {
	if a.cancel != nil && !a.stopping {
		a.stopping = true
		a.cancel()
		a.note("Cancelling… the partial trajectory stays and is saved.", false)
	}
}

// handleRun applies a batch from the run stream. It returns a consent
// request when one arrived (the engine waits for the answer).
func (a *askScreen) handleRun(b batchMsg) (tea.Cmd, *consentMsg) {
	if a.run == nil || b.stream != a.run.id {
		return nil, nil
	}
	var consent *consentMsg
	structural := false
	for _, m := range b.msgs {
		switch m := m.(type) {
		case runEventMsg:
			a.traj.Apply(m.ev)
			if _, token := m.ev.Payload.(engine.Token); !token {
				structural = true
			}
			if m.ev.Session != "" {
				a.sessionID = m.ev.Session
			}
		case consentMsg:
			c := m
			consent = &c
			structural = true
		case runDoneMsg:
			a.finish(m.err)
			structural = true
		}
	}
	var cmds []tea.Cmd
	if !b.done {
		cmds = append(cmds, a.run.next())
	} else if a.running {
		a.finish(nil)
		structural = true
	}
	if structural {
		a.dirty = false
		a.tv.refresh()
	} else {
		a.dirty = true
		if !a.tickPending {
			a.tickPending = true
			id := a.run.id
			cmds = append(cmds, tea.Tick(refreshEvery, func(time.Time) tea.Msg { return refreshMsg{stream: id} }))
		}
	}
	return tea.Batch(cmds...), consent
}

// finish records the end of the run and explains a failure in place.
func (a *askScreen) finish(err error) {
	if !a.running {
		return
	}
	a.running = false
	a.ended = a.sh.now()
	if a.cancel != nil {
		a.cancel()
	}
	a.runErr = err
	defer a.followAnswered(err)
	if a.failed() != "" {
		a.showFailure(err)
	}
	switch {
	case a.stopping || errors.Is(err, context.Canceled) || errors.Is(err, engine.ErrCancelled):
		a.note("Cancelled. The partial trajectory is saved with the session.", false)
	case errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrModelNotFound):
		// The banner says it, with what to do.
		a.sh.healthErr = err
		a.sh.healthSeq++
		a.notice = ""
		a.setSize(a.width, a.height)
	case err != nil:
		msg := termtext.Line(err.Error())
		if advice := llmAdvice(err, a.sh.settings); advice != "" {
			msg += " — " + advice
		}
		a.note(msg, true)
	default:
		// The model answered: whatever the health check said is over.
		a.sh.healthErr = nil
		a.sh.healthSeq++
		a.notice = ""
		a.setSize(a.width, a.height)
	}
}

// failed is why the last run failed, in a few words for the status line
// ("" when it did not fail: answered, cancelled or still running).
func (a *askScreen) failed() string {
	err := a.runErr
	if a.running || err == nil || a.stopping || errors.Is(err, context.Canceled) || errors.Is(err, engine.ErrCancelled) {
		return ""
	}
	msg := termtext.Line(err.Error())
	if i := strings.Index(msg, " — "); i > 0 {
		msg = msg[:i] // the advice is in the banner or the notice
	}
	if a.sessionID == "" && (a.traj == nil || len(a.traj.Blocks) == 0 && a.traj.Final == nil) {
		return "not run: " + msg // no session was started
	}
	return "failed: " + msg
}

// showFailure puts a failure the engine did not report (the run could not
// start: no server, no model) into the trajectory, where the question is.
func (a *askScreen) showFailure(err error) {
	if a.traj == nil || hasFatal(a.traj) {
		return
	}
	msg := "The question was not run: " + termtext.Line(err.Error())
	if a.sessionID != "" || len(a.traj.Blocks) > 0 || a.traj.Final != nil {
		msg = "The run failed: " + termtext.Line(err.Error())
	}
	a.traj.Apply(engine.Event{Session: a.sessionID, Time: a.sh.now(), Payload: engine.Notice{Message: msg, Fatal: true}})
}

// hasFatal reports whether a fatal error event is in the trajectory.
func hasFatal(t *trajectory.Trajectory) bool {
	for _, e := range t.Errors {
		if e.Fatal {
			return true
		}
	}
	for _, b := range t.Blocks {
		for _, e := range b.Errors {
			if e.Fatal {
				return true
			}
		}
	}
	return false
}

// view renders the screen body (everything between the tab bar and the
// status line).
func (a *askScreen) view() string {
	st := a.sh.st
	box := st.InputBlurred
	if a.typing {
		box = st.InputFocused
	}
	parts := []string{}
	if b := a.bannerView(); b != "" {
		parts = append(parts, b)
	}
	parts = append(parts, a.tv.view())
	if a.notice != "" {
		parts = append(parts, a.noticeView())
	}
	if a.fu.id != "" {
		parts = append(parts, a.threadView())
	}
	if !a.inputBoxValid {
		a.inputBox, a.inputBoxValid = box.Width(a.width).Render(a.input.View()), true
	}
	parts = append(parts, a.inputBox)
	return strings.Join(parts, "\n")
}

// bannerView explains a missing LLM server or model above everything.
func (a *askScreen) bannerView() string {
	err := a.sh.healthErr
	if err == nil {
		return ""
	}
	st := a.sh.st
	text := st.Error.Render("✗ "+termtext.Line(err.Error())) + "\n" + st.Text.Render(llmAdvice(err, a.sh.settings))
	return st.BannerError.Width(a.width).Render(text)
}

// welcome is shown before the first question.
func (a *askScreen) welcome() []string {
	st := a.sh.st
	w := a.width
	pref := a.sh.preferred()
	var lines []string
	add := func(s lipgloss.Style, text string) {
		for _, l := range wrapText(text, w) {
			lines = append(lines, s.Render(l))
		}
	}
	lines = append(lines, "")
	add(st.Bold, "Ask a question below.")
	where := "your preferred corpus"
	if pref != "" {
		where = "the preferred corpus " + sourceText(sources.CorpusName(pref).String())
	}
	add(st.Text, "prefrag searches "+where+" first, lets the model judge whether that is enough, and searches the web only when it is not (web policy "+a.sh.webPolicy()+"; w changes it when the input is not focused). Every Thought, Action and Observation appears here as it happens.")
	lines = append(lines, "")
	optIn := ""
	if a.sh.webNeedsOptIn() {
		optIn = " Without a corpus a question goes nowhere, not to the web either, unless prefrag was started with --web-only (or web_only = true in the config)."
	}
	switch {
	case a.sh.corporaLoaded && len(a.sh.corpora) == 0:
		add(st.Warn, "No corpus yet. Open the Corpora screen (Tab, then 3) to add a folder or index the bundled guide."+optIn)
	case optIn != "":
		add(st.Warn, "No corpus is pinned, so none is searched: pin one on the Corpora screen (Tab, then 3, then p)."+optIn)
	case a.sh.corporaErr != nil:
		add(st.Error, "Cannot list the corpora: "+termtext.Line(a.sh.corporaErr.Error()))
	}
	add(st.Dim, "Enter sends · Shift+Enter or Ctrl+J new line · Tab moves focus · Esc cancels a run · ? all keys · Ctrl+C quits")
	return lines
}

// runState summarises the run for the status line.
func (a *askScreen) runState() (step int, elapsed time.Duration, tokPerSec float64, local, web, used int) {
	if a.traj == nil {
		return
	}
	step = a.traj.CurrentStep()
	end := a.sh.now()
	if !a.running && !a.ended.IsZero() {
		end = a.ended
	}
	if !a.started.IsZero() {
		elapsed = end.Sub(a.started)
	}
	local, web, used = a.traj.RetrievalCounts()
	if f := a.traj.Final; f != nil && f.Counts != nil {
		c := f.Counts
		local, web, used = c.LocalRetrievals, c.WebRetrievals, c.UsedRetrievals
		if c.TotalMillis > 0 && !a.running {
			// The answered turn's own time, as its final answer shows
			// it (a thread opened from the store started long ago).
			elapsed = time.Duration(c.TotalMillis) * time.Millisecond
		}
		if c.LLMMillis > 0 {
			tokPerSec = float64(c.OutputTokens) / (float64(c.LLMMillis) / 1000)
		}
		return
	}
	if elapsed > 0 {
		tokPerSec = float64(a.traj.Tokens) / elapsed.Seconds()
	}
	return
}

func (a *askScreen) bindings() []keyGroup {
	if a.typing {
		return []keyGroup{{"Question input", a.ikeys.bindings()}}
	}
	if a.tv.modal() {
		return []keyGroup{{"Cited passage", a.tv.pkeys.bindings()}}
	}
	return []keyGroup{{"Ask screen", a.tkeys.bindings()}, {"Trajectory", a.tv.keys.bindings()}}
}

func (a *askScreen) shortHelp() []key.Binding {
	if a.typing {
		keys := []key.Binding{a.ikeys.Send, a.ikeys.Newline, a.ikeys.Focus, a.ikeys.Cancel}
		if len(a.history.sent) > 0 && a.input.Value() == "" {
			keys = append(keys, a.ikeys.Older)
		}
		return keys
	}
	if a.tv.modal() {
		return []key.Binding{a.tv.pkeys.Close, a.tv.pkeys.NextClaim, a.tv.pkeys.PrevClaim, a.tv.pkeys.Down}
	}
	if len(a.tv.claims()) > 0 {
		return []key.Binding{a.tv.keys.Next, a.tv.keys.Toggle, a.tv.keys.NextClaim, a.tv.keys.Open, a.tkeys.Input, a.tkeys.Export}
	}
	return []key.Binding{a.tv.keys.Next, a.tv.keys.Toggle, a.tkeys.Input, a.tkeys.Export}
}
