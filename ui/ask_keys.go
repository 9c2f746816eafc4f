package ui

import "charm.land/bubbles/v2/key"

// askInputKeys apply while the question input has focus.
type askInputKeys struct {
	Send    key.Binding
	Newline key.Binding
	Focus   key.Binding
	Cancel  key.Binding
	// NewThread leaves follow-up mode (thread.go).
	NewThread key.Binding
	// Older and Newer recall sent questions (ask_history.go): from an
	// empty box, or one holding a recalled question unchanged.
	Older key.Binding
	Newer key.Binding
}

func newAskInputKeys() askInputKeys {
	k := askInputKeys{
		Send:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline: key.NewBinding(key.WithKeys("shift+enter", "ctrl+j", "alt+enter"), key.WithHelp("shift+enter/ctrl+j", "new line")),
		Focus:   key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "to trajectory")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel run / leave input")),
	}
	k.NewThread = key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "new thread (not a follow-up)"))
	k.Older = key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous question (empty box)"))
	k.Newer = key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next question (while recalling)"))
	return k
}

func (k askInputKeys) bindings() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.Focus, k.Cancel, k.NewThread, k.Older, k.Newer}
}

// trajKeys apply while a trajectory (live or replayed) has focus.
type trajKeys struct {
	Next     key.Binding
	Prev     key.Binding
	Toggle   key.Binding
	PageDown key.Binding
	PageUp   key.Binding
	Top      key.Binding
	Bottom   key.Binding
	// The answer's claims: step through them, open one's cited passage.
	NextClaim key.Binding
	PrevClaim key.Binding
	Open      key.Binding
}

func newTrajKeys() trajKeys {
	return trajKeys{
		Next:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "next doc")),
		Prev:     key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "prev doc")),
		Toggle:   key.NewBinding(key.WithKeys("enter", "space"), key.WithHelp("enter", "expand/collapse")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "f"), key.WithHelp("pgdn/ctrl+d", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u", "b"), key.WithHelp("pgup/ctrl+u", "page up")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "bottom")),

		NextClaim: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next claim")),
		PrevClaim: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "prev claim")),
		Open:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "open the claim's passage")),
	}
}

func (k trajKeys) bindings() []key.Binding {
	return []key.Binding{k.Next, k.Prev, k.Toggle, k.PageDown, k.PageUp, k.Top, k.Bottom, k.NextClaim, k.PrevClaim, k.Open}
}

// passageKeys apply while a claim's cited passage is open over the
// trajectory.
type passageKeys struct {
	Close     key.Binding
	Down      key.Binding
	Up        key.Binding
	PageDown  key.Binding
	PageUp    key.Binding
	NextClaim key.Binding
	PrevClaim key.Binding
}

func newPassageKeys() passageKeys {
	return passageKeys{
		Close:     key.NewBinding(key.WithKeys("esc", "q", "e"), key.WithHelp("esc/q/e", "close the passage")),
		Down:      key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "scroll down")),
		Up:        key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "scroll up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "f", "space"), key.WithHelp("pgdn", "page down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u", "b"), key.WithHelp("pgup", "page up")),
		NextClaim: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next claim")),
		PrevClaim: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "prev claim")),
	}
}

func (k passageKeys) bindings() []key.Binding {
	return []key.Binding{k.Close, k.Down, k.Up, k.PageDown, k.PageUp, k.NextClaim, k.PrevClaim}
}

// askTrajKeys are the ask screen's own keys while its trajectory has focus.
type askTrajKeys struct {
	Input     key.Binding
	Cancel    key.Binding
	Export    key.Binding
	Quit      key.Binding
	NewThread key.Binding
}

func newAskTrajKeys() askTrajKeys {
	return askTrajKeys{
		Input:     key.NewBinding(key.WithKeys("tab", "shift+tab", "i"), key.WithHelp("tab/i", "to question input")),
		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel run")),
		Export:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "export session")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		NewThread: key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "new thread (not a follow-up)")),
	}
}

func (k askTrajKeys) bindings() []key.Binding {
	return []key.Binding{k.Input, k.Cancel, k.Export, k.Quit, k.NewThread}
}
