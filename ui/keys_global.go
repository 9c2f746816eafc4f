package ui

import "charm.land/bubbles/v2/key"

// globalKeys work on every screen; all but Quit only while no text input
// has focus (then every printable key is text).
type globalKeys struct {
	Quit     key.Binding
	Help     key.Binding
	Ask      key.Binding
	Sessions key.Binding
	Corpora  key.Binding
	Web      key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Quit:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "all keys")),
		Ask:      key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "ask screen")),
		Sessions: key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "sessions screen")),
		Corpora:  key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "corpora screen")),
		Web:      key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "web policy auto/ask/never")),
	}
}

func (k globalKeys) bindings() []key.Binding {
	return []key.Binding{k.Ask, k.Sessions, k.Corpora, k.Web, k.Help, k.Quit}
}

// helpKeys close the help page.
type helpKeys struct {
	Close key.Binding
	Up    key.Binding
	Down  key.Binding
}

func newHelpKeys() helpKeys {
	return helpKeys{
		Close: key.NewBinding(key.WithKeys("?", "esc", "q"), key.WithHelp("?/esc/q", "close help")),
		Up:    key.NewBinding(key.WithKeys("up", "k", "pgup"), key.WithHelp("↑/k", "scroll up")),
		Down:  key.NewBinding(key.WithKeys("down", "j", "pgdown", "space"), key.WithHelp("↓/j", "scroll down")),
	}
}

func (k helpKeys) bindings() []key.Binding { return []key.Binding{k.Up, k.Down, k.Close} }

// keyGroup is one titled section of the help page.
type keyGroup struct {
	title string
	keys  []key.Binding
}
