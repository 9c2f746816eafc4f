package ui

// The root model's routing: which message goes where.

import (
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/ui/styles"
)

// Update routes one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	cmd = tea.Batch(cmd, m.settle())
	if m.ask.traj == nil {
		m.ask.showWelcome()
	}
	if m.quitting {
		return m, tea.Quit
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case tea.BackgroundColorMsg:
		m.restyle(styles.New(msg.IsDark(), m.sh.opts.NoColor))
		return nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.MouseWheelMsg:
		if m.dialog != nil || m.helpOpen {
			return nil
		}
		return m.active().update(msg)
	case batchMsg:
		return m.handleBatch(msg)
	case healthMsg:
		m.sh.healthChecked = true
		if msg.seq == m.sh.healthSeq {
			m.sh.healthErr = msg.err
		}
		m.resize(m.width, m.height)
		return nil
	case corporaMsg:
		m.corporaListed(msg)
		return nil
	case webSavedMsg:
		if msg.err != nil {
			m.ask.note("The web policy "+msg.policy+" applies to this session but could not be saved: "+msg.err.Error(), true)
		} else {
			m.ask.note("Web policy "+msg.policy+" saved to the config file.", false)
		}
		return nil
	case reloadCorporaMsg:
		return m.loadCorpora()
	case refreshMsg, clockMsg, typedFlushMsg:
		return m.ask.update(msg)
	}
	if cmd, used := m.openAsked(msg); used {
		return cmd
	}
	if m.dialog != nil {
		if cmd, used := m.dialogMsg(msg); used {
			return cmd
		}
	}
	// Results of commands go to the screen that asked for them, whichever
	// is shown now.
	for _, s := range []screen{m.sessions, m.corpora, m.stepper} {
		if s.owns(msg) {
			return s.update(msg)
		}
	}
	return m.active().update(msg)
}

// corporaListed keeps the corpora the store listed; the first listing opens
// the web-choice dialog when asked for, else the first-run one when there
// is no corpus.
func (m *Model) corporaListed(msg corporaMsg) {
	first := !m.sh.corporaLoaded
	m.sh.corporaLoaded, m.sh.corporaErr = true, msg.err
	if msg.err == nil {
		m.sh.corpora = msg.list
	}
	m.corpora.listed()
	noCorpus := first && msg.err == nil && len(msg.list) == 0
	switch {
	case first && m.sh.opts.AskWebChoice && m.dialog == nil:
		m.dialog = newWebChoiceDialog(m.sh, noCorpus)
	case noCorpus && m.dialog == nil:
		m.dialog = newFirstRunDialog(m.sh)
	}
}

// openAsked opens the dialog or the screen msg asks for; used is false for
// any other message.
func (m *Model) openAsked(msg tea.Msg) (cmd tea.Cmd, used bool) {
	switch msg := msg.(type) {
	case openFirstRunMsg:
		if m.dialog == nil {
			m.dialog = newFirstRunDialog(m.sh)
		}
	case confirmQuitMsg:
		if m.dialog == nil {
			m.dialog = newQuitDialog(m.sh)
		}
	case openExportMsg:
		if m.sh.deps.Sessions != nil && len(msg.ids) > 0 {
			m.dialog = newExportDialog(m.sh, msg.ids)
		}
	case openSessionMsg:
		m.screen = screenStepper
		return m.stepper.load(msg.id), true
	case followUpMsg:
		m.screen = screenAsk
		return m.ask.openThread(msg.id, msg.traj), true
	case reaskMsg:
		m.screen = screenAsk
		m.ask.fu = thread{} // a re-ask starts a new thread
		cmd := m.ask.start(msg.question)
		m.ask.blurInput()
		return cmd, true
	case startIndexMsg:
		m.screen = screenCorpora
		return m.corpora.startIndex(msg), true
	default:
		return nil, false
	}
	return nil, true
}

// settle applies what handling a message asked to open (shared.open),
// then replays the held keys for as long as nothing holds them: all in the
// Update that handled the message, so the next message, a key typed right
// after, finds the focus where the user saw it going.
func (m *Model) settle() tea.Cmd {
	var cmds []tea.Cmd
	for !m.quitting {
		switch {
		case len(m.sh.opens) > 0:
			o := m.sh.opens[0]
			m.sh.opens = m.sh.opens[1:]
			cmds = append(cmds, m.update(o))
		case len(m.held) > 0 && !m.holding():
			k := m.held[0]
			m.held = m.held[1:]
			cmds = append(cmds, m.handleKey(k))
		default:
			return tea.Batch(cmds...)
		}
	}
	m.sh.opens, m.held = nil, nil
	return tea.Batch(cmds...)
}

// holding reports whether a key typed now must wait: at start, until the
// corpus list says whether a first-run dialog opens (keys typed before
// it would otherwise go to the question box or to the dialog depending
// on timing), and on a screen whose content is loading (a session list,
// a stored session), so that enter opens the row the user will see.
func (m *Model) holding() bool {
	if m.sh.deps.Corpora != nil && !m.sh.corporaLoaded {
		return true
	}
	if m.dialog != nil || m.helpOpen || m.active().isTyping() {
		return false
	}
	b, ok := m.active().(interface{ busy() bool })
	return ok && b.busy()
}

// dialogMsg gives a non-key message (a command's result) to the dialog.
func (m *Model) dialogMsg(msg tea.Msg) (tea.Cmd, bool) {
	o, ok := m.dialog.(interface{ owns(tea.Msg) bool })
	if !ok || !o.owns(msg) {
		return nil, false
	}
	cmd, done := m.dialog.update(msg)
	if done {
		m.dialog = nil
	}
	return cmd, true
}
