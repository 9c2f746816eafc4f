package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/prefrag/prefrag/ui/styles"
)

type screenID int

const (
	screenAsk screenID = iota
	screenSessions
	screenCorpora
	screenStepper
)

// healthTimeout bounds the LLM health check at start.
const healthTimeout = 5 * time.Second

// Model is the root Bubble Tea model: it owns the screens, routes every
// message and composes the frame (tab bar, screen, status line, key help,
// and a dialog or the help page on top).
type Model struct {
	sh    *shared
	gkeys globalKeys
	hkeys helpKeys
	help  help.Model

	screen screenID
	// backTo is where Esc (or q) on a screen returns: the screen it was
	// entered from with a global key (the Ask screen when none is known).
	backTo   map[screenID]screenID
	ask      *askScreen
	sessions *sessionsScreen
	corpora  *corporaScreen
	stepper  *stepperScreen

	dialog   dialog
	helpOpen bool
	helpPage pagerState

	width, height int
	quitting      bool

	// held are keys typed while what they are meant for is not known yet
	// (holding): they are replayed, in order, once it is.
	held []tea.KeyPressMsg

	statusCache, helpCache, tabsCache memo
}

// memo is one cached rendering and the signature it was made for.
type memo struct{ sig, out string }

// pagerState is a scroll offset for a page that is rebuilt on each view.
type pagerState struct{ offset int }

type (
	healthMsg struct {
		err error
		seq int // shared.healthSeq when the check started
	}
	corporaMsg struct {
		list []CorpusInfo
		err  error
	}
	openExportMsg struct{ ids []string }
	// reaskMsg asks question again from the ask screen.
	reaskMsg struct{ question string }
)

// New returns the root model; Run wraps it in a program. Tests drive it
// with teatest.
func New(ctx context.Context, deps Deps, opts Options) *Model {
	sh := newShared(ctx, deps, opts)
	m := &Model{sh: sh, gkeys: newGlobalKeys(), hkeys: newHelpKeys(), help: help.New(), width: 80, height: 24}
	m.help.Styles = sh.st.Help
	m.ask = newAskScreen(sh)
	for _, q := range opts.History {
		m.ask.history.add(q)
	}
	if opts.Draft != "" {
		m.ask.input.SetValue(opts.Draft)
	}
	m.sessions = newSessionsScreen(sh)
	m.corpora = newCorporaScreen(sh)
	m.stepper = newStepperScreen(sh)
	m.resize(m.width, m.height)
	return m
}

// shutdownWait bounds how long quitting waits for a cancelled run or
// ingest to finish writing.
const shutdownWait = 5 * time.Second

// shutdown stops what is still running (a run, an ingest) when the program
// has ended, and waits for it: a cancelled run still records its final
// event, an ingest its last batch.
func (m *Model) shutdown() {
	select {
	case <-m.sh.quit:
	default:
		close(m.sh.quit)
	}
	if m.ask.cancel != nil {
		m.ask.cancel()
	}
	if m.corpora.cancel != nil {
		m.corpora.cancel()
	}
	m.ask.run.wait(shutdownWait)
	m.corpora.index.wait(shutdownWait)
}

// Init asks the terminal for its background colour, checks the LLM and
// lists the corpora.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, m.checkHealth(), m.loadCorpora())
}

func (m *Model) checkHealth() tea.Cmd {
	h := m.sh.deps.Health
	if h == nil {
		return nil
	}
	ctx, seq := m.sh.ctx, m.sh.healthSeq
	return func() tea.Msg {
		cctx, cancel := context.WithTimeout(ctx, healthTimeout)
		defer cancel()
		return healthMsg{err: h.Check(cctx), seq: seq}
	}
}

func (m *Model) loadCorpora() tea.Cmd {
	c := m.sh.deps.Corpora
	if c == nil {
		return nil
	}
	ctx := m.sh.ctx
	return func() tea.Msg {
		list, err := c.List(ctx)
		return corporaMsg{list: list, err: err}
	}
}

// screen is what the root needs from a screen besides the ask screen's
// extras.
type screen interface {
	update(msg tea.Msg) tea.Cmd
	view() string
	setSize(w, h int)
	bindings() []keyGroup
	shortHelp() []key.Binding
	// owns reports whether msg is the result of one of its commands.
	owns(msg tea.Msg) bool
	// isTyping reports whether a text input has focus.
	isTyping() bool
}

func (a *askScreen) owns(tea.Msg) bool { return false }
func (a *askScreen) isTyping() bool    { return a.typing }

func (m *Model) active() screen {
	switch m.screen {
	case screenSessions:
		return m.sessions
	case screenCorpora:
		return m.corpora
	case screenStepper:
		return m.stepper
	}
	return m.ask
}

func (m *Model) handleBatch(b batchMsg) tea.Cmd {
	if m.ask.run != nil && b.stream == m.ask.run.id {
		cmd, consent := m.ask.handleRun(b)
		if consent != nil {
			m.dialog = newConsentDialog(m.sh, *consent, b.stream)
		}
		if !m.ask.running {
			if d, ok := m.dialog.(*consentDialog); ok && d.stream == b.stream {
				// The run ended (cancelled) while the dialog was open.
				m.dialog = nil
			}
			m.sessions.stale = true
		}
		return cmd
	}
	if m.corpora.index != nil && b.stream == m.corpora.index.id {
		return m.corpora.handleIndex(b)
	}
	return nil
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.gkeys.Quit) {
		m.quitting = true
		return tea.Quit
	}
	if m.holding() {
		// Earlier held keys are still held (settle replays them as soon
		// as nothing holds), so this one goes after them.
		m.held = append(m.held, msg)
		return nil
	}
	// A one-off status message lasts until the next key.
	m.sh.flash = ""
	if m.helpOpen {
		switch {
		case key.Matches(msg, m.hkeys.Close):
			m.helpOpen = false
		case key.Matches(msg, m.hkeys.Up):
			m.helpPage.offset = max(m.helpPage.offset-5, 0)
		case key.Matches(msg, m.hkeys.Down):
			m.helpPage.offset += 5
		}
		return nil
	}
	if m.dialog != nil {
		cmd, done := m.dialog.update(msg)
		if done {
			m.dialog = nil
		}
		return cmd
	}
	if !m.active().isTyping() {
		switch {
		case key.Matches(msg, m.gkeys.Help):
			m.helpOpen, m.helpPage.offset = true, 0
			return nil
		case key.Matches(msg, m.gkeys.Ask):
			// Back on the Ask screen, typing goes to the question box.
			m.screen = screenAsk
			return m.ask.focusInput()
		case key.Matches(msg, m.gkeys.Sessions):
			m.enterFrom(screenSessions)
			return m.sessions.enter()
		case key.Matches(msg, m.gkeys.Corpora):
			m.enterFrom(screenCorpora)
			return m.corpora.enter()
		case key.Matches(msg, m.gkeys.Web):
			m.sh.cycleWeb()
			return nil
		}
	}
	cmd := m.active().update(msg)
	if b, ok := m.active().(interface{ back() bool }); ok && b.back() {
		// The screen asked to go back.
		if m.screen == screenStepper {
			m.screen = screenSessions
			return tea.Batch(cmd, m.sessions.enter())
		}
		return tea.Batch(cmd, m.goBack())
	}
	return cmd
}

// enterFrom switches to a list screen with a global key, remembering the
// screen it came from for Esc. The stepper is never gone back to from a
// list (its own Esc leads to the sessions list: that would be a loop).
func (m *Model) enterFrom(to screenID) {
	if m.screen != to && m.screen != screenStepper {
		if m.backTo == nil {
			m.backTo = map[screenID]screenID{}
		}
		m.backTo[to] = m.screen
	}
	m.screen = to
}

// goBack leaves the current screen for the one it was entered from, with
// the focus it had there: on the Ask screen the question box only when it
// had it (a trajectory that had focus keeps it, so the next key acts on it
// rather than being typed).
func (m *Model) goBack() tea.Cmd {
	to, ok := m.backTo[m.screen]
	if !ok || to == m.screen {
		to = screenAsk
	}
	m.screen = to
	switch to {
	case screenSessions:
		return m.sessions.enter()
	case screenCorpora:
		return m.corpora.enter()
	}
	if m.ask.typing {
		return m.ask.focusInput()
	}
	m.ask.inputBoxValid = false
	return nil
}

func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 20), max(h, 8)
	m.help.SetWidth(m.width)
	body := m.height - 3
	m.ask.setSize(m.width, body)
	m.sessions.setSize(m.width, body)
	m.corpora.setSize(m.width, body)
	m.stepper.setSize(m.width, body)
}

func (m *Model) restyle(st *styles.Styles) {
	m.sh.st = st
	m.help.Styles = st.Help
	m.ask.restyle()
	m.stepper.restyle()
	m.resize(m.width, m.height)
}

// View composes the frame.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "prefrag"
	v.SetContent(m.render())
	return v
}

// render is the frame as a string (the golden tests compare it).
func (m *Model) render() string {
	body := m.active().view()
	if m.helpOpen {
		body = m.helpView(m.height - 3)
	}
	frame := strings.Join([]string{m.tabsView(), fitHeight(body, m.height-3), m.statusView(), m.shortHelpView()}, "\n")
	if m.dialog != nil && !m.helpOpen {
		frame = overlay(frame, m.dialog.view(m.width), m.width, m.height)
	}
	return frame
}

func (m *Model) tabsView() string {
	sig := fmt.Sprintf("%d|%d|%s|%p", m.width, m.screen, m.stepper.id, m.sh.st)
	if m.tabsCache.sig != sig {
		m.tabsCache.sig, m.tabsCache.out = sig, m.renderTabs()
	}
	return m.tabsCache.out
}

func (m *Model) renderTabs() string {
	st := m.sh.st
	tabs := []struct {
		id    screenID
		label string
	}{{screenAsk, "1 Ask"}, {screenSessions, "2 Sessions"}, {screenCorpora, "3 Corpora"}}
	parts := []string{st.Brand.Render(" prefrag ")}
	for _, t := range tabs {
		active := m.screen == t.id || (t.id == screenSessions && m.screen == screenStepper)
		if active {
			parts = append(parts, st.TabActive.Render(t.label))
		} else {
			parts = append(parts, st.Tab.Render(t.label))
		}
	}
	left := strings.Join(parts, "")
	if m.screen == screenStepper {
		left += st.Dim.Render(" › ") + st.Bold.Render("session "+m.sh.shortID(m.stepper.id))
	}
	if l := m.sh.opts.Label; l != "" {
		left += " " + st.Warn.Render("["+l+"]")
	}
	right := st.Dim.Render("? keys ")
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return truncateTo(left, m.width)
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m *Model) shortHelpView() string {
	sig := fmt.Sprintf("%d|%d|%v|%T|%p|%v|%p", m.width, m.screen, m.helpOpen, m.dialog, m.dialog, m.active().isTyping(), m.sh.st)
	if c, ok := m.corpora, m.screen == screenCorpora; ok {
		sig += fmt.Sprintf("|%d", c.mode)
	}
	// The claim keys show once an answer has claims; the passage has its own.
	sig += fmt.Sprintf("|%v|%d|%v|%d", m.ask.tv.modal(), len(m.ask.tv.claims()), m.stepper.tv.modal(), len(m.stepper.tv.claims()))
	if d, ok := m.dialog.(*exportDialog); ok {
		sig += fmt.Sprintf("|%v", d.confirm)
	}
	if m.helpCache.sig == sig {
		return m.helpCache.out
	}
	out := m.renderShortHelp()
	m.helpCache.sig, m.helpCache.out = sig, out
	return out
}

func (m *Model) renderShortHelp() string {
	var ks []key.Binding
	switch {
	case m.helpOpen:
		ks = m.hkeys.bindings()
	case m.dialog != nil:
		ks = m.dialog.shortHelp()
	default:
		ks = m.active().shortHelp()
		if !m.active().isTyping() {
			ks = append(ks, m.gkeys.Help)
		}
	}
	return truncateTo(m.help.ShortHelpView(ks), m.width)
}

// fitHeight pads or cuts s to exactly h lines.
func fitHeight(s string, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// overlay draws box centred over frame.
func overlay(frame, box string, w, h int) string {
	bw, bh := lipgloss.Width(box), lipgloss.Height(box)
	x, y := max((w-bw)/2, 0), max((h-bh)/2, 0)
	c := lipgloss.NewCompositor(lipgloss.NewLayer(frame), lipgloss.NewLayer(box).X(x).Y(y).Z(1))
	return c.Render()
}

func itoa(n int) string { return strconv.Itoa(n) }
